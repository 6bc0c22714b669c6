/** The bench's machine table (`bench/machine-share.ts`): its arithmetic, and a reading of this machine. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  machineShare,
  machineSnapshot,
  type MachineSnapshot,
  type ThreadTimes,
} from '../../bench/machine-share.js';

const snapshot = (
  busyTicks: number,
  allTicks: number,
  threads: Array<[string, ThreadTimes]>,
): MachineSnapshot => ({ busyTicks, allTicks, cores: 2, threads: new Map(threads) });

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

describe('bench machine share', () => {
  it('compares thread by thread: a new thread counts from its start, an ended one in the rest', () => {
    const from = snapshot(1_000, 2_000, [
      ['10/10', { part: 'nodeMainThread', runNs: 1e9, waitNs: 1e8 }],
      ['20/20', { part: 'postgres', runNs: 5e9, waitNs: 0 }], // ends before `to`
    ]);
    const to = snapshot(1_100, 2_200, [
      ['10/10', { part: 'nodeMainThread', runNs: 1.4e9, waitNs: 3e8 }],
      ['30/30', { part: 'postgres', runNs: 2e8, waitNs: 5e7 }], // started after `from`
      ['40/41', { part: 'natsServer', runNs: 1e8, waitNs: 1e8 }],
    ]);
    const share = machineShare(from, to, 100)!;
    assert.deepEqual(share.perRecord.nodeMainThread, { cpuMs: 4, waitMs: 2 });
    assert.deepEqual(share.perRecord.nodeOtherThreads, { cpuMs: 0, waitMs: 0 });
    assert.deepEqual(share.perRecord.postgres, { cpuMs: 2, waitMs: 0.5 });
    assert.deepEqual(share.perRecord.natsServer, { cpuMs: 1, waitMs: 1 });
    // 100 busy ticks are 1 s of CPU; 0.7 s is accounted for above.
    assert.deepEqual(share.perRecord.everythingElse, { cpuMs: 3, waitMs: 0 });
    // Busy 100 of 200 ticks on 2 cores: one core's worth.
    assert.equal(share.coresBusy, 1);
  });

  it('has no share without both snapshots or without records', () => {
    const one = snapshot(0, 0, []);
    assert.equal(machineShare(undefined, one, 10), undefined);
    assert.equal(machineShare(one, one, 0), undefined);
  });

  it('reads this process on Linux: CPU spent on the main thread shows there', (t) => {
    const from = machineSnapshot();
    if (!from) {
      t.skip('SKIPPED: no /proc schedstat here (not Linux): the bench prints no machine table');
      return;
    }
    // 60 ms of this process's CPU, not of the clock: on a loaded machine (a CI run's other
    // test files) the thread waits for a core for much of any 60 ms of the clock.
    const start = process.cpuUsage();
    const giveUp = performance.now() + 10_000;
    while (cpuMsSince(start) < 60 && performance.now() < giveUp);
    const share = machineShare(from, machineSnapshot(), 1)!;
    assert.ok(share.perRecord.nodeMainThread.cpuMs >= 30, JSON.stringify(share));
    assert.ok(share.coresBusy > 0 && share.coresBusy <= share.cores, JSON.stringify(share));
  });
});

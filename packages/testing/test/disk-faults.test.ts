/**
 * Lock-free disk faults (issue 21, spawnUnderFiu's `lockFree`): a fault switched on and off
 * while the process forks children never hangs it. The render harness's embedded run hung at such a switch
 * (services/render README, "the fork hang"): fiu-ctrl made libfiu's remote-control thread
 * take its write lock while Node forked ffmpeg; the child, its copy of the lock held by a
 * thread it does not have, waited forever before its exec, and Node's spawn with it (and
 * libuv's SIGCHLD handler deadlocked on them: native/disk-faults.c). The
 * process here is a real Node that spawns `true` without pause (the forks) and answers a
 * probe line with one positioned write and fsync of a file and how many spawns have
 * ended: after each switch the write must fail or succeed as the switch says, and the
 * spawns must go on.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import {
  EIO,
  ENOSPC,
  diskFaultLibrary,
  setDiskFull,
  setSyncCallFailing,
  skipReason,
  spawnUnderFiu,
  until,
} from '../src/index.js';

const skip = skipReason('cc (to build native/disk-faults.c)', diskFaultLibrary() !== undefined);

const FORKER = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const fd = fs.openSync(process.argv[1], 'w');
let spawned = 0;
const again = () => spawn('true').once('close', () => { spawned += 1; again(); });
again();
again();
require('node:readline').createInterface({ input: process.stdin }).on('line', () => {
  let outcome = 'ok';
  try {
    fs.writeSync(fd, 'x', 0);
    fs.fsyncSync(fd);
  } catch (error) {
    outcome = error.code;
  }
  console.log(outcome + ' ' + spawned);
});`;

/** A forking process under fiu-run, and a probe: the outcome of a write, and the spawns so far. */
function startForker(t: { after(fn: () => void): void }) {
  const work = mkdtempSync(join(tmpdir(), 'disk-faults-test-'));
  const child = spawnUnderFiu(
    process.execPath,
    ['-e', FORKER, join(work, 'file')],
    { stdio: ['pipe', 'pipe', 'inherit'] },
    false,
    { lockFree: true },
  );
  t.after(() => {
    child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  const probe = async (what: string) => {
    const seen = lines.length;
    child.stdin!.write('probe\n');
    await until(`an answer to the probe ${what} (the process hung?)`, 30_000, () =>
      Promise.resolve(lines.length > seen),
    );
    const [outcome, spawned] = lines[seen]!.split(' ');
    return { outcome: outcome!, spawned: Number(spawned) };
  };
  return { pid: child.pid!, probe };
}

test(
  'a disk fault switched on and off while the process forks never hangs it',
  { skip },
  async (t) => {
    const forker = startForker(t);
    let last = await forker.probe('at the start');
    assert.equal(last.outcome, 'ok');
    // Each switch of setDiskFull is six points; the old fiu-ctrl switch hung a forking
    // process within a few hundred such switches.
    for (let i = 1; i <= 150; i += 1) {
      const full = i % 2 === 1;
      const errno = i % 4 === 1 ? ENOSPC : EIO;
      setDiskFull(forker.pid, full, errno);
      // Spawns that end after the switch: the process forked across it.
      const before = last.spawned;
      await until(`spawns after switch ${i}`, 30_000, async () => {
        last = await forker.probe(`after switch ${i}`);
        return last.spawned > before + 2;
      });
      assert.equal(
        last.outcome,
        full ? (errno === ENOSPC ? 'ENOSPC' : 'EIO') : 'ok',
        `switch ${i}`,
      );
    }
  },
);

test('one sync call fails alone, and works again', { skip }, async (t) => {
  const forker = startForker(t);
  setSyncCallFailing(forker.pid, 'fsync', true);
  assert.equal((await forker.probe('with fsync failing')).outcome, 'EIO');
  setSyncCallFailing(forker.pid, 'fsync', false);
  assert.equal((await forker.probe('with fsync back')).outcome, 'ok');
});

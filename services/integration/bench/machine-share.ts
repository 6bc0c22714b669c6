/**
 * Where a phase's CPU went on the whole machine, and how long each part waited for a core:
 * read from Linux's /proc at the phase's start and end. The platform shares its cores with
 * PostgreSQL, nats-server and the bench's own clients and observer; a figure that stops
 * short of its goal while the process is not busy is explained here, not in a profile of
 * the process alone (28 Nov 2026, 2-core AMD EPYC: the main thread ran 52–54 % of the
 * single-POST phase and waited for a core another 35–38 %, so its `--cpu-prof` showed a
 * quarter of the phase in socket writes: the thread preempted by the reader it woke).
 *
 * Run time and run-queue wait are `schedstat`'s (nanoseconds, per thread); the machine's
 * busy time is `/proc/stat`'s. Elsewhere than Linux, or without schedstat, there is no
 * share (undefined) and the bench prints none.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Who the machine's CPU went to. */
export type MachinePart =
  'nodeMainThread' | 'nodeOtherThreads' | 'postgres' | 'natsServer' | 'everythingElse';

export interface PartShare {
  /** CPU time a record, ms. */
  cpuMs: number;
  /** Time a record its threads were ready to run but waited for a core, ms (none for `everythingElse`). */
  waitMs: number;
}

export interface MachineShare {
  /** Cores busy on average over the phase, of `cores`. */
  coresBusy: number;
  cores: number;
  /**
   * Per record. `nodeOtherThreads` is the bench's load client and landing observer and
   * V8's and libuv's workers; `postgres` and `natsServer` are every such process on the
   * machine; `everythingElse` is the machine's busy time left over (the kernel's own, other
   * processes).
   */
  perRecord: Record<MachinePart, PartShare>;
}

interface Times {
  runNs: number;
  waitNs: number;
}

type ThreadPart = Exclude<MachinePart, 'everythingElse'>;

/** One thread's schedstat and whose it is. */
export type ThreadTimes = Times & { part: ThreadPart };

export interface MachineSnapshot {
  /** /proc/stat's first line: busy and all jiffies. */
  busyTicks: number;
  allTicks: number;
  cores: number;
  /** Each thread's times, by `pid/tid`: compared thread by thread, since a backend may end between two snapshots. */
  threads: Map<string, ThreadTimes>;
}

const ticksPerSecond = 100; // USER_HZ: 100 on every Linux that Node runs on

function schedstat(path: string): Times | undefined {
  try {
    const [run, wait] = readFileSync(path, 'utf8').split(' ');
    return { runNs: Number(run), waitNs: Number(wait) };
  } catch {
    return undefined; // the thread ended between the listing and the read
  }
}

function threadsOf(pid: string): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** The machine now, or undefined where /proc has no schedstat (not Linux, or a kernel without it). */
export function machineSnapshot(): MachineSnapshot | undefined {
  if (!schedstat(`/proc/${process.pid}/task/${process.pid}/schedstat`)) return undefined;
  const stat = readFileSync('/proc/stat', 'utf8');
  const cpu = stat.split('\n', 1)[0]!.split(/\s+/).slice(1, 9);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu.map(Number) as number[];
  const threads: MachineSnapshot['threads'] = new Map();
  const add = (pid: string, tid: string, part: ThreadPart) => {
    const times = schedstat(`/proc/${pid}/task/${tid}/schedstat`);
    if (times) threads.set(`${pid}/${tid}`, { ...times, part });
  };
  const self = String(process.pid);
  for (const tid of threadsOf(self))
    add(self, tid, tid === self ? 'nodeMainThread' : 'nodeOtherThreads');
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || pid === self) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    const part =
      comm === 'postgres' ? 'postgres' : comm === 'nats-server' ? 'natsServer' : undefined;
    if (part) for (const tid of threadsOf(pid)) add(pid, tid, part);
  }
  const busyTicks = user! + nice! + system! + irq! + softirq! + steal!;
  return {
    busyTicks,
    allTicks: busyTicks + idle! + iowait!,
    cores: stat.match(/^cpu\d+ /gm)?.length ?? 1,
    threads,
  };
}

const ms = (ns: number, records: number) => Math.round((ns / 1e6 / records) * 1000) / 1000;

/**
 * The share of the machine between two snapshots, per record. A thread that started in
 * between counts from its start; one that ended in between (a pool's idle connection
 * closed) counts in `everythingElse`, since what it ran inside the window is not known.
 */
export function machineShare(
  from: MachineSnapshot | undefined,
  to: MachineSnapshot | undefined,
  records: number,
): MachineShare | undefined {
  if (!from || !to || records <= 0) return undefined;
  const sums: Record<ThreadPart, Times> = {
    nodeMainThread: { runNs: 0, waitNs: 0 },
    nodeOtherThreads: { runNs: 0, waitNs: 0 },
    postgres: { runNs: 0, waitNs: 0 },
    natsServer: { runNs: 0, waitNs: 0 },
  };
  let accountedNs = 0;
  for (const [thread, now] of to.threads) {
    const before = from.threads.get(thread);
    // Never below zero: a thread id the kernel gave again, after its first owner ended.
    const runNs = Math.max(0, now.runNs - (before?.runNs ?? 0));
    const waitNs = Math.max(0, now.waitNs - (before?.waitNs ?? 0));
    sums[now.part].runNs += runNs;
    sums[now.part].waitNs += waitNs;
    accountedNs += runNs;
  }
  const perRecord = {} as Record<MachinePart, PartShare>;
  for (const [part, { runNs, waitNs }] of Object.entries(sums))
    perRecord[part as ThreadPart] = { cpuMs: ms(runNs, records), waitMs: ms(waitNs, records) };
  const busyNs = ((to.busyTicks - from.busyTicks) / ticksPerSecond) * 1e9;
  perRecord.everythingElse = { cpuMs: ms(Math.max(0, busyNs - accountedNs), records), waitMs: 0 };
  const allTicks = to.allTicks - from.allTicks;
  return {
    coresBusy:
      allTicks > 0
        ? Math.round(((to.busyTicks - from.busyTicks) / allTicks) * to.cores * 100) / 100
        : 0,
    cores: to.cores,
    perRecord,
  };
}

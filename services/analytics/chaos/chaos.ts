/**
 * `npm run chaos -- --service analytics --faults N --seed S` (issue 21): builds of the
 * warehouse (`analytics build`, a process) killed with SIGKILL at seeded random points
 * (after a seeded number of its steps, plus a seeded part of the next step's time, so
 * the copy, bronze … views, the commit, the checkpoint and the rename are all hit),
 * while the service (`src/main.ts`, a process) answers a paced load of REST reads. After
 * each kill it checks that the DuckDB file opens and holds a whole build (the previous
 * one, or the new one when the kill came after the rename), that the next build
 * completes and is served, and that no scratch copy is left behind. Every read is kept:
 * each must be a 200 naming a build that was whole at the time. It prints one table and
 * exits 1 on a violation. No engine of the machine is used (files in a temp folder).
 *
 * `power loss`: at the same seeded point the build is paused (SIGSTOP) and DATA_DIR
 * copied (the disk as a writeback that stopped at that moment leaves it), the build runs
 * on for 0.5–2 s (it may commit, checkpoint, rename), then the build and the service are
 * killed and the service starts again on the copy: what was written after it is gone,
 * fsynced or not (stricter than a real power loss, which keeps what was fsynced). The
 * same checks follow, the restarted service must serve, and reads that found no service
 * while it was down are counted apart, not as problems.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import {
  bundleEntry,
  diskFaultLibrary,
  kindDrawer,
  quantile,
  RestartableService,
  setDiskFull,
  sleep,
  spawnUnderFiu,
  until,
} from '@platform/testing';
import { seededRandom } from '@platform/core';
import { warehousePath } from '../src/warehouse/paths.js';

const { values: argv } = parseArgs({
  options: {
    faults: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    service: { type: 'string', default: 'analytics' },
    /** Orders of the generated data set (small: builds take seconds). */
    orders: { type: 'string', default: '2000' },
    /** One read every pace-ms. */
    'pace-ms': { type: 'string', default: '100' },
    /**
     * `kill` (SIGKILL of a build), `disk-full` (its disk fills mid-build: packages/testing's
     * lock-free disk-fault library) and
     * `power-loss` (build and service killed, the service restarted on a copy of DATA_DIR
     * taken 0.5–2 s earlier).
     */
    kinds: { type: 'string' },
    /** Kinds drawn in rounds, each a seeded shuffle of all kinds (the short run in `npm test`). */
    'every-kind': { type: 'boolean', default: false },
  },
});
const FAULTS = Number(argv.faults);
const SEED = Number(argv.seed);
const PACE_MS = Number(argv['pace-ms']);
const SERVICE_DIR = fileURLToPath(new URL('..', import.meta.url));
const random = seededRandom(SEED);
const KINDS = ['kill', 'disk-full', 'power-loss'] as const;
type FaultKind = (typeof KINDS)[number];
/** Without the disk-fault library (no `cc`) the disk cannot be filled: the run says so. */
const KIND_LIST: FaultKind[] = argv.kinds
  ? (argv.kinds.split(',') as FaultKind[])
  : diskFaultLibrary()
    ? [...KINDS]
    : ['kill', 'power-loss'];
for (const kind of KIND_LIST) if (!KINDS.includes(kind)) throw new Error(`unknown fault ${kind}`);
const log = (line: string) =>
  console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);

interface Read {
  status: number | 'none';
  buildId?: string;
  at: number;
  endedAt: number;
}

/** A build process; `steps` counts the step lines it printed so far. */
interface Build {
  child: ChildProcess;
  steps: number;
  output: string;
  exited: Promise<number | null>;
  /** Resolves once it printed `count` step lines (at once for 0): the line is the signal. */
  reached(count: number): Promise<void>;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'chaos-analytics-'));
  const dataDir = join(work, 'data');
  const source = join(work, 'source');
  const file = warehousePath(dataDir);
  log(`seed ${SEED}, ${FAULTS} faults of ${KIND_LIST.join(', ')}; folder ${work}`);
  if (!argv.kinds && !KIND_LIST.includes('disk-full'))
    log('cc cannot build the disk-fault library: no disk-full faults in this run');
  // The CLI and the service run bundled by plain node: a cold `tsx` start of each costs
  // more CPU than a build of 2,000 orders (README, "Chaos (issue 21)"); same code.
  const [cli, serviceMain] = await Promise.all([
    bundleEntry(SERVICE_DIR, join(SERVICE_DIR, 'src', 'cli-entry.ts')),
    bundleEntry(SERVICE_DIR, join(SERVICE_DIR, 'src', 'main.ts')),
  ]);
  const runBuild = (args: string[], underFiu = false): Build => {
    const options = {
      cwd: SERVICE_DIR,
      env: { ...process.env, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
    };
    // Lock-free: under libfiu's fiu-run a build hung in its locks and never answered
    // fiu-ctrl (the 200-fault run of 27 Nov stopped so at fault 88).
    const child = underFiu
      ? spawnUnderFiu(process.execPath, [cli, ...args], options, false, { lockFree: true })
      : spawn(process.execPath, [cli, ...args], options);
    const waiting: Array<{ count: number; resolve: () => void }> = [];
    const build: Build = {
      child,
      steps: 0,
      output: '',
      exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
      reached: (count) =>
        build.steps >= count
          ? Promise.resolve()
          : new Promise((resolve) => waiting.push({ count, resolve })),
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      build.output += chunk;
      build.steps = build.output.split('\n').filter((l) => /^\w+\s+\d+ ms/.test(l)).length;
      for (const w of waiting) if (build.steps >= w.count) w.resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (build.output += chunk));
    return build;
  };
  const complete = async (args: string[]) => {
    const build = runBuild(args);
    const code = await build.exited;
    if (code !== 0) throw new Error(`analytics ${args[0]} failed (${code}):\n${build.output}`);
    return build.output;
  };
  /** The build the file holds, read as a reader would (read-only); throws if it does not open. */
  const fileBuild = async () => {
    const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
    try {
      const connection = await instance.connect();
      const reader = await connection.runAndReadAll('SELECT build_id FROM gold.build_info');
      connection.closeSync();
      return String(reader.getRowObjects()[0]!.build_id);
    } finally {
      instance.closeSync();
    }
  };
  /** Resolves once a build's scratch copy (`.build-*`) exists: the build has begun. */
  const scratchAppears = async (build: Build) => {
    while (build.child.exitCode === null && build.child.signalCode === null) {
      if (scratchLeft().length > 0) return;
      await sleep(5);
    }
  };
  const scratchLeft = () =>
    readdirSync(join(dataDir, 'analytics')).filter((n) => n.startsWith('.build-'));

  let service: RestartableService | undefined;
  const reads: Read[] = [];
  /** While the service was down for a power loss: a read then finds no service. */
  const outages: Array<{ from: number; to: number }> = [];
  /** Builds whole in the file at some point (a read naming another is a problem). */
  const whole = new Set<string>();
  const problems: string[] = [];
  const faults: Array<{ kind: FaultKind; step: number; outcome: string; recoveryMs: number }> = [];
  let stopReads = false;
  const interrupted = () => {
    service?.stop();
    service?.child?.kill('SIGKILL');
    process.exit(143);
  };
  process.once('SIGTERM', interrupted);
  process.once('SIGINT', interrupted);
  try {
    await complete(['generate', '--out', source, '--orders', argv.orders!, '--seed', String(SEED)]);
    const first = await complete(['build', '--source', source]);
    // The first build's step times: a kill lands inside a step by a part of its time.
    const stepMs = first
      .split('\n')
      .map((l) => /^\w+\s+(\d+) ms/.exec(l)?.[1])
      .filter(Boolean)
      .map(Number);
    let current = await fileBuild();
    whole.add(current);
    // A stable free port; a restart after a power loss whose port another process took
    // meanwhile moves to a fresh one, and the reads follow it.
    const analytics = await RestartableService.create({
      name: 'the service',
      portNames: ['PORT'],
      log,
      spawn: (ports) =>
        spawn(process.execPath, [serviceMain], {
          cwd: SERVICE_DIR,
          env: {
            ...process.env,
            DATA_DIR: dataDir,
            PORT: String(ports.PORT),
            HOST: '127.0.0.1',
            LOG_LEVEL: 'warn',
          },
          // Piped (and dropped): its output tells an EADDRINUSE exit from a crash.
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
    });
    service = analytics;
    await analytics.start();
    const read = async (): Promise<Read> => {
      const at = Date.now();
      try {
        const response = await fetch(`${analytics.url()}/api/v1/sales/kpis`, {
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await response.json()) as { meta?: { build_id?: string } };
        return {
          status: response.status,
          at,
          endedAt: Date.now(),
          ...(body.meta?.build_id ? { buildId: body.meta.build_id } : {}),
        };
      } catch {
        return { status: 'none', at, endedAt: Date.now() };
      }
    };
    await until('the service answers the KPIs', 180_000, async () => (await read()).status === 200);
    log(`service up; first build ${current} (steps ${stepMs.join(', ')} ms)`);
    const reading = (async () => {
      while (!stopReads) {
        const answer = await read();
        reads.push(answer);
        await sleep(PACE_MS);
      }
    })();
    const served = (buildId: string, since: number) =>
      until(`build ${buildId} served`, 60_000, () =>
        reads.some((r) => r.at >= since && r.buildId === buildId),
      );

    const nextKind = kindDrawer(KIND_LIST, random, argv['every-kind']);
    for (let i = 0; i < FAULTS; i += 1) {
      // The fault after `step` step lines, a part of the next step's time later.
      const step = Math.floor(random() * (stepMs.length + 1));
      const delay = random() * (stepMs[step] ?? stepMs.at(-1) ?? 100);
      const kind = nextKind();
      const build = runBuild(['build', '--source', source], kind === 'disk-full');
      // Step 0 is timed from the build's start (its scratch copy appearing), not from the
      // spawn: Node's start-up takes longer than the first step, so a fault timed from
      // the spawn hit the start-up, before the build had opened anything.
      const exited = await Promise.race([
        (step === 0 ? scratchAppears(build) : build.reached(step)).then(() => false),
        build.exited.then(() => true),
        sleep(120_000).then(() => Promise.reject(new Error(`a build never reached step ${step}`))),
      ]);
      if (!exited) await sleep(delay);
      let killedAt = Date.now();
      let code: number | null;
      if (kind === 'kill') {
        build.child.kill('SIGKILL');
        code = await build.exited;
      } else if (kind === 'power-loss') {
        // Paused, the page cache holds every write made so far and no later one.
        const disk = join(work, 'disk');
        rmSync(disk, { recursive: true, force: true });
        if (!exited) build.child.kill('SIGSTOP');
        cpSync(dataDir, disk, { recursive: true });
        if (!exited) build.child.kill('SIGCONT');
        await Promise.race([sleep(500 + random() * 1500), build.exited]);
        build.child.kill('SIGKILL');
        code = await build.exited;
        // Whole in the file until the power went (the service may have served it).
        whole.add(await fileBuild().catch(() => current));
        killedAt = Date.now();
        await analytics.kill();
        const outage = { from: killedAt, to: Number.POSITIVE_INFINITY };
        outages.push(outage);
        rmSync(dataDir, { recursive: true, force: true });
        cpSync(disk, dataDir, { recursive: true });
        await analytics.start();
        await until('the service serves after the power loss', 180_000, () =>
          reads.some((r) => r.at >= killedAt && r.status === 200),
        ).catch(() => problems.push('the service did not serve after a power loss'));
        outage.to = reads.find((r) => r.at >= killedAt && r.status === 200)?.at ?? Date.now();
        // Lost with the power: the killed build's exit says nothing about the disk.
        code = code === 0 ? -1 : code;
      } else {
        // The disk fills under the build: it must fail by itself (or finish first), naming
        // the disk — DuckDB's "No space left on device", or Node's "ENOSPC: no space left
        // on device, copyfile" when the copy step is hit (the CLI prints that one with its
        // stack: not a PipelineError).
        if (!exited) setDiskFull(build.child.pid!, true);
        const hung = sleep(120_000).then(() => 'hung' as const);
        const ended = await Promise.race([build.exited, hung]);
        if (ended === 'hung') {
          problems.push(`a build under a full disk from step ${step} did not end`);
          build.child.kill('SIGKILL');
        } else if (ended !== 0 && !/no space left on device/i.test(build.output))
          problems.push(
            `a build under a full disk failed without naming it: ${build.output.slice(-300)}`,
          );
        code = await build.exited;
      }
      // The file opens and holds a whole build: the previous one, or this one when the
      // kill came after the rename.
      let held: string | undefined;
      try {
        held = await fileBuild();
      } catch (error) {
        problems.push(
          `after a kill at step ${step}, the DuckDB file does not open: ${String(error)}`,
        );
      }
      const outcome =
        code === 0 ? 'finished first' : held === current ? 'previous kept' : 'new in place';
      if (held) {
        whole.add(held);
        if (code !== 0 && held !== current)
          log(
            `kill at step ${step}: the file already holds the new build (killed after the rename)`,
          );
        current = held;
      }
      // The next build completes, removes what the killed one left, and is served.
      await complete(['build', '--source', source]).catch((error: Error) =>
        problems.push(
          `the build after a kill at step ${step} failed: ${error.message.slice(0, 500)}`,
        ),
      );
      const next = await fileBuild();
      whole.add(next);
      current = next;
      const left = scratchLeft();
      if (left.length > 0)
        problems.push(`after the next build, scratch copies left: ${left.join(', ')}`);
      await served(next, killedAt).catch(() => problems.push(`build ${next} never served`));
      const firstNew = reads.find((r) => r.at >= killedAt && r.buildId === next);
      const recoveryMs = firstNew ? firstNew.at - killedAt : Number.POSITIVE_INFINITY;
      faults.push({ kind, step, outcome, recoveryMs });
      log(
        `fault ${i + 1}/${FAULTS}: ${kind === 'kill' ? 'build killed' : kind === 'power-loss' ? 'power loss' : 'disk full'} at step ${step} (+${Math.round(delay)} ms): ${outcome}; next build served after ${recoveryMs} ms`,
      );
    }
    stopReads = true;
    await reading;
    // Every read is a 200, but for a read that found the service down after a power loss.
    let whileDown = 0;
    for (const r of reads) {
      if (r.status === 200) continue;
      const down = outages.some((o) => r.endedAt >= o.from && r.at <= o.to);
      if (down && r.status === 'none') whileDown += 1;
      else problems.push(`a read answered ${r.status}`);
    }
    // Checked at the end: a completed build is served before the harness reads its id.
    for (const r of reads)
      if (r.buildId && !whole.has(r.buildId))
        problems.push(`a read named build ${r.buildId}, never whole in the file`);

    const byStep = new Map<string, number>();
    for (const f of faults) {
      const key = `${f.kind} after step ${f.step}`;
      byStep.set(key, (byStep.get(key) ?? 0) + 1);
    }
    const byOutcome = new Map<string, number>();
    for (const f of faults) byOutcome.set(f.outcome, (byOutcome.get(f.outcome) ?? 0) + 1);
    const byStatus = new Map<number | 'none', number>();
    for (const r of reads) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    if (analytics.crashes > 0)
      problems.push(`the service exited by itself ${analytics.crashes} times`);
    const times = faults.map((f) => f.recoveryMs);
    console.log('\nanalytics chaos, seed', SEED);
    console.log('| fault | count |');
    console.log('| --- | --- |');
    for (const [fault, count] of [...byStep].sort((a, b) => a[0].localeCompare(b[0])))
      console.log(`| ${fault} | ${count} |`);
    console.log(`\noutcomes: ${[...byOutcome].map(([o, c]) => `${o}: ${c}`).join(', ')}`);
    console.log(
      `reads: ${[...byStatus].map(([s, c]) => `${s === 'none' ? 'no answer' : s}: ${c}`).join(', ')} (no answer while the service was down after a power loss: ${whileDown})`,
    );
    console.log(
      `faults ${faults.length}; problems ${problems.length}; service crashes ${analytics.crashes}; moved off a taken port ${analytics.relocations}`,
    );
    console.log(
      `from the fault to the next build served: p50 ${quantile(times, 0.5)} ms, p99 ${quantile(times, 0.99)} ms`,
    );
    for (const line of [...new Set(problems)].slice(0, 20)) console.log(`  ${line}`);
    if (problems.length > 0) {
      console.log(`FAILED; folder ${work}`);
      process.exitCode = 1;
    }
  } finally {
    stopReads = true;
    service?.stop();
    await service?.kill();
    if (process.exitCode !== 1) rmSync(work, { recursive: true, force: true });
  }
}

await main();
process.exit(process.exitCode ?? 0);

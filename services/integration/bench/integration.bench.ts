/**
 * `npm run bench:integration`: records per second from submission to all three targets
 * (relational table, csv file, webhook) and end-to-end latency percentiles, for each
 * broker driver: the SQL log on PGlite (the embedded default) and JetStream (with
 * PostgreSQL when it answers, else PGlite), skipped loudly when NATS is absent.
 *
 * The whole platform runs in this process through `startPlatform` (the `npm start`
 * wiring), with the interns contract attached to relational (shaped), csv and a webhook
 * served by a local HTTP server. Records are POSTed over HTTP with a fixed concurrency by
 * clients on a thread of their own (`load-client.ts`; BENCH_CLIENT=inline: on the
 * platform's event loop);
 * a record's latency is from the start of its POST until it is visible in the last of
 * the three targets (webhook: arrival; file: polled every 20 ms; table: its audit log, read on
 * from the last row seen every 20 ms), watched from a
 * thread of its own too (`landing-observer.ts`; BENCH_OBSERVER=inline: on the platform's
 * loop).
 *
 * Three phases per driver: throughput (BENCH_RECORDS single POSTs as fast as
 * BENCH_CONCURRENCY clients can submit; latency there is mostly queueing), batch
 * (BENCH_BATCH_RECORDS through `records:batch`, BENCH_BATCH_SIZE a request,
 * BENCH_BATCH_CONCURRENCY requests at once) and latency (BENCH_LATENCY_RECORDS submitted
 * at a steady BENCH_RATE per second: 3,000 at 1,000/s by default, the issue's latency goal),
 * each after BENCH_PHASE_GAP_MS of idle (3 s). Each phase's line also has the submission's
 * answer and each target's own latency percentiles (`targetsMs`).
 * Each phase also reports the process's CPU time per record (`cpuMsPerRecord`) and, on
 * Linux, the whole machine's per record (`machine`, `machine-share.ts`: this process's main
 * thread and other threads, PostgreSQL, nats-server, the rest; each with the time it
 * waited for a core), printed as a second table. The webhook
 * attachment posts arrays of up to BENCH_WEBHOOK_BATCH envelopes (100; 0: one a request).
 * BENCH_SOAK=1 (or a number of events) then runs the soak of `bench:integration-soak`
 * (100,000 events with a paused and a restarted adapter, checked exactly once and in
 * per-key order) for each driver, and prints its line too; it exits 1 when that check fails.
 * The process runs with the node flags `npm start` gives the service (package.json
 * `platform.nodeOptions`; `service-node-options.ts`): BENCH_NODE_OPTIONS=0 runs without.
 *
 *   BENCH_RECORDS=2000 BENCH_BATCH_RECORDS=10000 BENCH_RATE=1000 BENCH_DRIVERS=sql-log,jetstream npm run bench:integration
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { createLogger, startTypeScriptWorker } from '@platform/core';
import { natsUrlForTests } from '@platform/testing';
import { startPlatform, type RunningPlatform } from '../src/platform.js';
import { openBenchEngines } from './bench-engines.js';
import {
  createTablePoll,
  startLandingObserver,
  type LandingObserver,
  type LandingObserverOptions,
  type PhaseLandings,
  type SettleRequest,
} from './landing-observer.js';
import type {
  AcceptedReport,
  FromObserverThread,
  ObserverThreadData,
  ToObserverThread,
} from './landing-observer-thread.js';
import {
  clock,
  createLoadClient,
  type LoadClientOptions,
  type LoadCommand,
} from './load-client.js';
import type { FromLoadThread, LoadThreadData, PhaseCommand } from './load-client-thread.js';
import {
  machineShare,
  machineSnapshot,
  type MachineShare,
  type PartShare,
} from './machine-share.js';
import { reportingRuns, type PhaseRun } from './phase-reports.js';
import { runWithServiceNodeOptions } from './service-node-options.js';
import { runSoak, type SoakResult } from './soak-core.js';

runWithServiceNodeOptions();

/**
 * Single POSTs of the throughput phase. 5,000 (1,000 before 28 Nov 2026 11:40 UTC): a phase
 * is timed until its last record lands, and at 1,000 the pipeline's own latency (the last
 * record's linger, transaction and the 20 ms poll: 200–300 ms) was a third of the phase, so
 * the figure was the tail's, not the rate's; and a phase of a second was long enough for
 * one reconcile or one round of V8 recompiling to double its CPU a record.
 * @defaultValue 5000
 */
const RECORDS = Number(process.env.BENCH_RECORDS ?? 5000);
/**
 * Single POSTs before the phases, not measured (each driver; waited for until they landed
 * in all three targets). The single-POST phase runs first, so without them it measures a
 * process V8 is still compiling: after 1,000 intake POSTs `perf` found 38 % of the
 * process's CPU on its compiler threads (28 Nov 2026). Decision: the figures are a running
 * platform's, so warm by default (as JMH warms before it measures); `BENCH_WARM_UP=0`
 * measures the cold start, as every figure before 28 Nov 2026 02:00 UTC was taken.
 * @defaultValue 4000
 */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 4000);
/**
 * Records through the batch endpoint after the warm-up's single POSTs, not measured either:
 * without them the batch phase was the first of its kind, and V8 recompiled the drain's
 * functions for batches of 500 while it measured (`--trace-opt`: 152 compiles in a phase
 * of 1.2 s, 28 Nov 2026). @defaultValue 5000 (0 when BENCH_WARM_UP=0)
 */
const WARM_UP_BATCH = Number(process.env.BENCH_WARM_UP_BATCH ?? (WARM_UP > 0 ? 5000 : 0));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const LATENCY_RECORDS = Number(process.env.BENCH_LATENCY_RECORDS ?? 3000);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
/** Records of the batch phase; 20,000 (5,000 before 28 Nov 2026 11:40 UTC, see `RECORDS`). */
const BATCH_RECORDS = Number(process.env.BENCH_BATCH_RECORDS ?? 20_000);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 500);
const BATCH_CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 4);
const DRIVERS = (process.env.BENCH_DRIVERS ?? 'sql-log,jetstream').split(',').map((d) => d.trim());
/** Soak events per driver after the phases: BENCH_SOAK=1 is the issue's 100,000; unset, none. */
const SOAK_EVENTS = ((flag) => (flag === '1' ? 100_000 : Number(flag ?? 0)))(
  process.env.BENCH_SOAK,
);
const POLL_MS = 20;
/**
 * Idle time before each measured phase (after the last one's records all landed). A phase
 * measures one load: run straight after the batch phase's burst, the paced phase's first
 * second carried that burst's aftermath (V8 collecting its garbage as the paced load
 * allocated: 33–57 ms of GC a 500 ms against 15 later, the intake's stages 3–4 times their
 * later length), and that first third of its records set its p99 (28 Nov 2026, 2-core Intel
 * Xeon: answer p99 98–115 ms with no gap, 30–43 ms after one). In the gap the process
 * is idle (the machine 3–10 % busy after 0.2 s). `BENCH_PHASE_GAP_MS=0` runs them back to back,
 * as every figure before 28 Nov 2026 11:40 UTC was taken. @defaultValue 3000
 */
const PHASE_GAP_MS = Number(process.env.BENCH_PHASE_GAP_MS ?? 3000);
const phaseGap = () => new Promise((resolve) => setTimeout(resolve, PHASE_GAP_MS));
/**
 * BENCH_PHASE_MARKS=1 prints `PHASE <driver>-<phase> start|end <epoch ms> <monotonic µs>` on
 * stderr (the second clock is a `--cpu-prof` profile's), so a
 * sampler outside the process (per-thread CPU from /proc) can cut its samples by phase.
 */
const PHASE_MARKS = process.env.BENCH_PHASE_MARKS === '1';
const mark = (name: string, event: 'start' | 'end') => {
  if (PHASE_MARKS)
    process.stderr.write(
      `PHASE ${name} ${event} ${Date.now()} ${process.hrtime.bigint() / 1000n}\n`,
    );
};
/**
 * The webhook attachment's batch body (issue 11 item 3): BENCH_WEBHOOK_BATCH=N posts JSON
 * arrays of up to N envelopes, 0 one envelope a request (the figures before 27 Nov 2026,
 * 15:00 UTC). On by default, at the attachment's own default size: a receiver taking
 * one request a record at 5,000 records a second bounds the figure itself (the README's
 * "Decisions"). @defaultValue 100
 */
const WEBHOOK_BATCH = Number(process.env.BENCH_WEBHOOK_BATCH ?? 100);
/** JetStream workers' linger (`JetStreamBrokerOptions.lingerMs`); unset: the driver's default. */
const LINGER_MS = process.env.BENCH_LINGER_MS ? Number(process.env.BENCH_LINGER_MS) : undefined;

/**
 * Where the clients run (`load-client.ts`): `thread`, a worker thread of their own, as a
 * separate load generator would run; `inline`, on the platform's event loop, as every
 * figure before 28 Nov 2026 13:30 UTC was taken. @defaultValue thread
 */
const CLIENT = process.env.BENCH_CLIENT ?? 'thread';
/**
 * Where the bench watches the targets (`landing-observer.ts`): `thread`, a worker thread of
 * its own (the table from there too on PostgreSQL), as an observer outside the platform
 * would; `inline`, on the platform's event loop, as every figure before 28 Nov 2026
 * 16:30 UTC was taken. @defaultValue thread
 */
const OBSERVER = process.env.BENCH_OBSERVER ?? 'thread';

interface OpenLoadClient {
  /** Runs one command; its answered records go to the observer as `phase`'s. Resolves to their count. */
  run: PhaseRun;
  close(): Promise<void>;
}

/** The load client, on a thread of its own or on this loop; it reports to `reports`. */
function openLoadClient(options: LoadClientOptions, reports: MessagePort): OpenLoadClient {
  if (CLIENT === 'inline') {
    const client = createLoadClient(options);
    return {
      run: reportingRuns(client, reports),
      close: async () => {
        client.close();
        reports.close();
      },
    };
  }
  if (CLIENT !== 'thread') throw new Error(`BENCH_CLIENT must be thread or inline, not ${CLIENT}`);
  const worker = startTypeScriptWorker(new URL('./load-client-thread.ts', import.meta.url), {
    workerData: { options, reports } satisfies LoadThreadData,
    transferList: [reports],
  });
  let current: { resolve(count: number): void; reject(e: Error): void } | undefined;
  // A thread that failed or ended fails the command running and every later one: a
  // failure between commands (the thread's start) would otherwise be lost, and the next
  // command wait for an answer that never comes.
  let ended: Error | undefined;
  const end = (error: Error) => {
    ended ??= error;
    current?.reject(ended);
    current = undefined;
  };
  worker.on('message', (message: FromLoadThread) => {
    if ('done' in message) current?.resolve(message.done);
    else end(new Error(`load client: ${message.error}`));
  });
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`load client thread exited (${code})`)));
  return {
    run: (phase, command) =>
      new Promise<number>((resolve, reject) => {
        if (ended) return reject(ended);
        current = { resolve, reject };
        worker.postMessage({ phase, command } satisfies PhaseCommand);
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}

/**
 * The landing observer and its ledger, on a thread of its own or on this loop; the load
 * client's reports come in on `reports`. `watchTable`: the ids to look for in a table
 * the bench polls itself (PGlite).
 */
async function openLandingObserver(
  options: LandingObserverOptions,
  reports: MessagePort,
  watchTable: ((recordIds: string[]) => void) | undefined,
): Promise<LandingObserver> {
  if (OBSERVER === 'inline') {
    const observer = await startLandingObserver(options, watchTable);
    reports.on('message', (report: AcceptedReport) =>
      observer.accepted(report.phase, report.accepted),
    );
    return {
      ...observer,
      async close() {
        reports.close();
        await observer.close();
      },
    };
  }
  if (OBSERVER !== 'thread')
    throw new Error(`BENCH_OBSERVER must be thread or inline, not ${OBSERVER}`);
  const worker = startTypeScriptWorker(new URL('./landing-observer-thread.ts', import.meta.url), {
    workerData: { options, reports } satisfies ObserverThreadData,
    transferList: [reports],
  });
  const send = (message: ToObserverThread) => worker.postMessage(message);
  // Every later step waits on one of these; a thread that fails or ends settles them all.
  let ready!: { resolve(url: string): void; reject(error: Error): void };
  let closed!: { resolve(): void; reject(error: Error): void };
  const readyUrl = new Promise<string>((resolve, reject) => (ready = { resolve, reject }));
  const closedDone = new Promise<void>((resolve, reject) => (closed = { resolve, reject }));
  closedDone.catch(() => undefined);
  const settling = new Map<number, { resolve(f: PhaseLandings): void; reject(e: Error): void }>();
  let nextId = 0;
  const end = (error: Error) => {
    ready.reject(error);
    closed.reject(error);
    for (const waiter of settling.values()) waiter.reject(error);
    settling.clear();
  };
  worker.on('message', (message: FromObserverThread) => {
    if ('settled' in message) {
      const waiter = settling.get(message.settled);
      settling.delete(message.settled);
      if ('figures' in message) waiter?.resolve(message.figures);
      else waiter?.reject(new Error(message.error));
    } else if ('watchTable' in message) watchTable?.(message.watchTable);
    else if ('ready' in message) ready.resolve(message.ready);
    else if ('closed' in message) closed.resolve();
    else end(new Error(`landing observer: ${message.error}`));
  });
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`landing observer thread exited (${code})`)));
  const webhookUrl = await readyUrl;
  return {
    webhookUrl,
    accepted: (phase, accepted) => send({ phase, accepted }),
    landed: (landed) => send({ landed }),
    settle: (request: SettleRequest) =>
      new Promise<PhaseLandings>((resolve, reject) => {
        const id = nextId++;
        settling.set(id, { resolve, reject });
        send({ settle: request, id });
      }),
    async close() {
      send('close');
      await closedDone;
      await worker.terminate();
    },
  };
}

/** A phase's figures: the ledger's (`landing-ledger.ts`), and this process's CPU. */
interface Phase extends PhaseLandings {
  /**
   * CPU time of this process (every role, the bench's clients and observer, on their
   * threads or not) per record, from the phase's start until its last record landed: the
   * figure a shared, noisy machine disturbs least.
   */
  cpuMsPerRecord: number;
  /** Where the machine's CPU went, per record (Linux; `machine-share.ts`). */
  machine?: MachineShare;
}

interface Result {
  driver: string;
  /** `postgres`, `pglite`, or `pglite-thread` (PGlite on a thread of its own: PGLITE_THREAD). */
  database: string;
  /** Most envelopes in one webhook request (0: one a request, no batch body). */
  webhookBatch: number;
  /** Single POSTs before the phases, not measured (BENCH_WARM_UP). */
  warmUp: number;
  /** Records through the batch endpoint after them, not measured (BENCH_WARM_UP_BATCH). */
  warmUpBatch: number;
  throughput: Phase;
  batch: Phase;
  latency: Phase;
}

async function runDriver(driver: string): Promise<Result | undefined> {
  const natsUrl = driver === 'jetstream' ? await natsUrlForTests() : undefined;
  if (driver === 'jetstream' && !natsUrl) {
    process.stderr.write(
      '\nSKIP: NATS JetStream is not available here — the jetstream figures were NOT measured.\n\n',
    );
    return undefined;
  }
  const engines = await openBenchEngines({
    name: 'integration-bench',
    natsUrl,
    ...(LINGER_MS === undefined ? {} : { lingerMs: LINGER_MS }),
  });
  const { dataDir, db, logger, broker } = engines;
  const env = {
    // The refresh (heartbeat and attachment re-read) at its default, as `npm start` runs it:
    // attachments reach adapters by the control plane's watch now, and at 500 ms the
    // heartbeats' re-reads were the embedded default's second most frequent statements.
    // ADAPTER_THREADS from the bench's environment (main, workers); unset, the default.
    ...engines.config(
      process.env.ADAPTER_THREADS ? { ADAPTER_THREADS: process.env.ADAPTER_THREADS } : {},
    ),
    PORT: 0,
    RELATIONAL_ADAPTER_PORT: 0,
    CSV_ADAPTER_PORT: 0,
    CONTROL_PLANE_PORT: 0,
    WEBHOOK_ADAPTER_PORT: 0,
  };
  // PGlite answers only this thread: its table is polled here (the ids the observer sends
  // are asked for only if their audit rows never show), and what it sees goes back to the
  // observer.
  let observer: LandingObserver | undefined;
  const localTable = engines.threadEngines.databaseUrl
    ? undefined
    : createTablePoll(db, (landings) => observer!.landed(landings));
  let platform: RunningPlatform | undefined;
  let polling = false;
  let localPoller: Promise<void> | undefined;
  // The load client reports the records it had answered straight to the observer.
  const reports = new MessageChannel();
  try {
    observer = await openLandingObserver(
      {
        csvPath: join(dataDir, 'integration', 'csv', 'interns.csv'),
        databaseUrl: engines.threadEngines.databaseUrl,
        pollMs: POLL_MS,
      },
      reports.port2,
      localTable && ((recordIds) => localTable.watch(recordIds)),
    );
    platform = await startPlatform({
      env,
      logger,
      db,
      ...(broker ? { broker } : {}),
      threadEngines: engines.threadEngines,
    });
    const cp = platform.urls['control-plane']!;
    const attach = await fetch(`${cp}/contracts/interns/adapters`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        adapterType: 'webhook',
        config: {
          url: observer.webhookUrl,
          authType: 'bearer',
          token: 'bench-token',
          ...(WEBHOOK_BATCH > 0 ? { batch: { maxRecords: WEBHOOK_BATCH } } : {}),
        },
      }),
    });
    if (attach.status !== 201)
      throw new Error(`webhook attachment: ${attach.status} ${await attach.text()}`);
    for (const adapter of platform.adapters) await adapter.refresh();

    polling = true;
    localPoller = localTable
      ? (async () => {
          while (polling) {
            await localTable.poll();
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          }
        })()
      : undefined;
    const load = openLoadClient(
      {
        submissionUrl: platform.urls.submission!,
        run: randomBytes(3).toString('hex'),
        maxSockets: Math.max(CONCURRENCY, 64),
      },
      reports.port1,
    );
    /**
     * Runs `commands` as the phase `name`, from its start until every record it had
     * answered is in all three targets.
     */
    const runPhase = async (name: string, ...commands: LoadCommand[]): Promise<Phase> => {
      const cpuAtStart = process.cpuUsage();
      const machineAtStart = machineSnapshot();
      const startedAt = clock();
      let expected = 0;
      for (const command of commands) expected += await load.run(name, command);
      const figures = await observer!.settle({
        phase: name,
        expected,
        startedAt,
        submittedAt: clock(),
        timeoutMs: Number(process.env.BENCH_SETTLE_MS ?? 600_000),
      });
      const cpu = process.cpuUsage(cpuAtStart);
      const machine = machineShare(machineAtStart, machineSnapshot(), figures.records);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      return {
        ...figures,
        cpuMsPerRecord: Math.round((cpuMs / figures.records) * 1000) / 1000,
        ...(machine ? { machine } : {}),
      };
    };
    /** `runPhase` after the idle gap, between the profiler's marks. */
    const measure = async (name: string, command: LoadCommand): Promise<Phase> => {
      await phaseGap();
      mark(`${driver}-${name}`, 'start');
      const phase = await runPhase(`${driver}-${name}`, command);
      mark(`${driver}-${name}`, 'end');
      return phase;
    };

    const singles = (count: number): LoadCommand => ({
      kind: 'singles',
      count,
      concurrency: CONCURRENCY,
    });
    const batches = (count: number): LoadCommand => ({
      kind: 'batches',
      count,
      size: BATCH_SIZE,
      concurrency: BATCH_CONCURRENCY,
    });

    if (WARM_UP > 0)
      await runPhase(
        `${driver}-warm-up`,
        singles(WARM_UP),
        ...(WARM_UP_BATCH > 0 ? [batches(WARM_UP_BATCH)] : []),
      );

    // Throughput: as fast as the clients can submit.
    const throughput = await measure('throughput', singles(RECORDS));
    // Batch intake: records:batch requests, a few at once.
    const batch = await measure('batch', batches(BATCH_RECORDS));
    // Latency: single POSTs at a steady rate (the issue's goal: p99 ≤ 250 ms at 1,000/s).
    const latency = await measure('paced', { kind: 'paced', count: LATENCY_RECORDS, rate: RATE });
    await load.close();
    return {
      driver: driver === 'jetstream' ? 'jetstream' : 'sql-log',
      database: engines.pgliteThread ? 'pglite-thread' : db.engine,
      webhookBatch: WEBHOOK_BATCH,
      warmUp: WARM_UP,
      warmUpBatch: WARM_UP_BATCH,
      throughput,
      batch,
      latency,
    };
  } finally {
    polling = false;
    await localPoller;
    await platform?.close();
    await observer?.close();
    await engines.close();
  }
}

const results: Result[] = [];
const soaks: SoakResult[] = [];
for (const driver of DRIVERS) {
  const result = await runDriver(driver);
  if (result) {
    results.push(result);
    console.log(JSON.stringify(result));
    if (SOAK_EVENTS > 0) {
      // The soak's own set-up (adapters on the test harness, the relational target on
      // PostgreSQL for JetStream when it answers), as `npm run bench:integration-soak`.
      const soak = await runSoak({
        driver: driver === 'jetstream' ? 'jetstream' : 'sql-log-pglite',
        records: SOAK_EVENTS,
        timeoutMs: 30 * 60_000,
        logger: createLogger({ service: 'integration-bench-soak', level: 'warn' }),
      });
      soaks.push(soak);
      console.log(JSON.stringify({ phase: 'soak', ...soak }));
    }
  }
}
console.log(
  `\nintegration bench: ${RECORDS} records at concurrency ${CONCURRENCY}, ${BATCH_RECORDS} in batches of ${BATCH_SIZE} (${BATCH_CONCURRENCY} requests at once), then ${LATENCY_RECORDS} at ${RATE}/s, webhook ${WEBHOOK_BATCH > 0 ? `arrays of up to ${WEBHOOK_BATCH}` : 'one envelope a request'} (latency: POST start → visible in all three targets)`,
);
console.log(
  'driver     database  phase       records  seconds  end-to-end rec/s  submit rec/s  CPU ms/rec  p50 ms  p95 ms  p99 ms  max ms',
);
for (const r of results) {
  for (const [name, p] of [
    ['throughput', r.throughput],
    ['batch', r.batch],
    ['paced', r.latency],
  ] as const) {
    console.log(
      [
        r.driver.padEnd(10),
        r.database.padEnd(9),
        name.padEnd(10),
        String(p.records).padStart(7),
        String(p.seconds).padStart(8),
        String(p.perSecond).padStart(17),
        String(p.submitPerSecond).padStart(13),
        p.cpuMsPerRecord.toFixed(3).padStart(11),
        String(p.latencyMs.p50).padStart(7),
        String(p.latencyMs.p95).padStart(7),
        String(p.latencyMs.p99).padStart(7),
        String(p.latencyMs.max).padStart(7),
      ].join(' '),
    );
  }
}
const phasesOf = (r: Result) =>
  [
    ['throughput', r.throughput],
    ['batch', r.batch],
    ['paced', r.latency],
  ] as const;
if (results.some((r) => phasesOf(r).some(([, p]) => p.machine))) {
  console.log(
    "\nthe machine a record, ms of CPU (+ ms its threads waited for a core): node main thread, its other threads (the bench's clients and observer, V8, libuv), PostgreSQL, nats-server, the rest",
  );
  const cell = ({ cpuMs, waitMs }: PartShare) =>
    `${cpuMs.toFixed(3)} (+${waitMs.toFixed(3)})`.padStart(15);
  for (const r of results) {
    for (const [name, p] of phasesOf(r)) {
      if (!p.machine) continue;
      const { perRecord, coresBusy, cores } = p.machine;
      console.log(
        [
          r.driver.padEnd(10),
          name.padEnd(10),
          `${coresBusy.toFixed(2)} of ${cores} cores`.padEnd(15),
          cell(perRecord.nodeMainThread),
          cell(perRecord.nodeOtherThreads),
          cell(perRecord.postgres),
          cell(perRecord.natsServer),
          perRecord.everythingElse.cpuMs.toFixed(3).padStart(7),
        ].join(' '),
      );
    }
  }
}
for (const soak of soaks) {
  console.log(
    `soak ${soak.driver}: ${soak.records} events, every target complete in ${soak.totalSeconds.toFixed(1)} s ` +
      `(goal ≤ 60 s), CPU ${soak.cpuMsPerEvent} ms/event: ` +
      (soak.problems.length
        ? `FAILED: ${soak.problems.join('; ')}`
        : 'exactly once, per-key order OK'),
  );
}
process.exit(soaks.some((soak) => soak.problems.length > 0) ? 1 : 0);

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
 * the three targets (webhook: arrival; table and file: polled every 20 ms), watched from a
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
 * Each phase also reports the process's CPU time per record (`cpuMsPerRecord`). The webhook
 * attachment posts arrays of up to BENCH_WEBHOOK_BATCH envelopes (100; 0: one a request).
 * BENCH_SOAK=1 (or a number of events) then runs the soak of `bench:integration-soak`
 * (100,000 events with a paused and a restarted adapter, checked exactly once and in
 * per-key order) for each driver, and prints its line too; it exits 1 when that check fails.
 *
 *   BENCH_RECORDS=2000 BENCH_BATCH_RECORDS=10000 BENCH_RATE=1000 BENCH_DRIVERS=sql-log,jetstream npm run bench:integration
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLogger, startTypeScriptWorker } from '@platform/core';
import { natsUrlForTests } from '@platform/testing';
import { startPlatform, type RunningPlatform } from '../src/platform.js';
import { openBenchEngines } from './bench-engines.js';
import {
  createTablePoll,
  startLandingObserver,
  type Landing,
  type LandingObserver,
  type LandingObserverOptions,
} from './landing-observer.js';
import type { FromObserverThread, ToObserverThread } from './landing-observer-thread.js';
import {
  createLoadClient,
  type AcceptedRecord,
  type LoadClientOptions,
  type LoadCommand,
} from './load-client.js';
import type { FromLoadThread } from './load-client-thread.js';
import { runSoak, type SoakResult } from './soak-core.js';

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
  run(command: LoadCommand, report: (accepted: AcceptedRecord[]) => void): Promise<void>;
  close(): Promise<void>;
}

function openLoadClient(options: LoadClientOptions): OpenLoadClient {
  if (CLIENT === 'inline') {
    const client = createLoadClient(options);
    return { run: client.run, close: async () => client.close() };
  }
  if (CLIENT !== 'thread') throw new Error(`BENCH_CLIENT must be thread or inline, not ${CLIENT}`);
  const worker = startTypeScriptWorker(new URL('./load-client-thread.ts', import.meta.url), {
    workerData: options,
  });
  let current:
    | { report: (accepted: AcceptedRecord[]) => void; resolve(): void; reject(e: Error): void }
    | undefined;
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
    if ('accepted' in message) current?.report(message.accepted);
    else if ('done' in message) current?.resolve();
    else end(new Error(`load client: ${message.error}`));
  });
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`load client thread exited (${code})`)));
  return {
    run: (command, report) =>
      new Promise<void>((resolve, reject) => {
        if (ended) return reject(ended);
        current = { report, resolve, reject };
        worker.postMessage(command);
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}

async function openLandingObserver(
  options: LandingObserverOptions,
  seen: (landings: Landing[]) => void,
): Promise<LandingObserver> {
  if (OBSERVER === 'inline') return startLandingObserver(options, seen);
  if (OBSERVER !== 'thread')
    throw new Error(`BENCH_OBSERVER must be thread or inline, not ${OBSERVER}`);
  const worker = startTypeScriptWorker(new URL('./landing-observer-thread.ts', import.meta.url), {
    workerData: options,
  });
  const send = (message: ToObserverThread) => worker.postMessage(message);
  // Every later step waits on one of these; a thread that fails or ends settles them all.
  let ready!: { resolve(url: string): void; reject(error: Error): void };
  let closed!: { resolve(): void; reject(error: Error): void };
  const readyUrl = new Promise<string>((resolve, reject) => (ready = { resolve, reject }));
  const closedDone = new Promise<void>((resolve, reject) => (closed = { resolve, reject }));
  closedDone.catch(() => undefined);
  const end = (error: Error) => {
    ready.reject(error);
    closed.reject(error);
  };
  worker.on('message', (message: FromObserverThread) => {
    if ('landed' in message) seen(message.landed);
    else if ('ready' in message) ready.resolve(message.ready);
    else if ('closed' in message) closed.resolve();
    else end(new Error(`landing observer: ${message.error}`));
  });
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`landing observer thread exited (${code})`)));
  const webhookUrl = await readyUrl;
  return {
    webhookUrl,
    watch: (recordIds) => send({ watch: recordIds }),
    async close() {
      send('close');
      await closedDone;
      await worker.terminate();
    },
  };
}

interface Phase {
  records: number;
  seconds: number;
  /** Records per second from the first submission until every record is in all three targets. */
  perSecond: number;
  submitPerSecond: number;
  /**
   * CPU time of this process (every role, the bench's clients, on their thread or not, and
   * its poll) per record,
   * from the phase's start until the last record landed: the figure a shared, noisy
   * machine disturbs least.
   */
  cpuMsPerRecord: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  /**
   * The submission's answer and each target's own latency (p50, p99: from the POST's start
   * until its 202 arrived, or the record was seen there), so a phase's latency can be traced
   * to the part that set it. The table and the file are polled every 20 ms, the webhook is
   * timed on arrival.
   */
  targetsMs: Record<'accepted' | 'table' | 'file' | 'webhook', { p50: number; p99: number }>;
}

interface Result {
  driver: string;
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

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
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
  const hooks = new Map<string, number>();
  const inTable = new Map<string, number>();
  const inFile = new Map<string, number>();
  const accepted = new Map<string, number>();
  // Records of the running phase that reached all three targets, counted as each lands:
  // the phase's end is a comparison, not a scan of every submitted id every 20 ms (that
  // scan cost a tenth of the batch phase's CPU at 20,000 records, inside the measure).
  let phase = new Map<string, number>();
  let phaseLanded = 0;
  const noteLanding = (id: string) => {
    if (phase.has(id) && inTable.has(id) && inFile.has(id) && hooks.has(id)) phaseLanded += 1;
  };
  const byTarget = { table: inTable, file: inFile, webhook: hooks };
  const seen = (landings: Landing[]) => {
    for (const [recordId, target, at] of landings) {
      const times = byTarget[target];
      if (times.has(recordId)) continue;
      // `clock()` is the process's clock; this thread's `performance.now()` is offset.
      times.set(recordId, at - performance.timeOrigin);
      noteLanding(recordId);
    }
  };
  // PGlite answers only this thread: its table is polled here.
  const localTable = engines.threadEngines.databaseUrl ? undefined : createTablePoll(db, seen);
  let observer: LandingObserver | undefined;
  let platform: RunningPlatform | undefined;
  let polling = false;
  let localPoller: Promise<void> | undefined;
  try {
    observer = await openLandingObserver(
      {
        csvPath: join(dataDir, 'integration', 'csv', 'interns.csv'),
        databaseUrl: engines.threadEngines.databaseUrl,
        pollMs: POLL_MS,
      },
      seen,
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
            await new Promise((resolve) => setTimeout(resolve, localTable.intervalMs(POLL_MS)));
          }
        })()
      : undefined;
    const load = openLoadClient({
      submissionUrl: platform.urls.submission!,
      run: randomBytes(3).toString('hex'),
      maxSockets: Math.max(CONCURRENCY, 64),
    });
    /** Runs `command` on the load client; what it accepts goes into `submitted`. */
    const submit = (submitted: Map<string, number>, command: LoadCommand) =>
      load.run(command, (records) => {
        const watch: string[] = [];
        for (const [recordId, startedAt, answeredAt] of records) {
          submitted.set(recordId, startedAt - performance.timeOrigin);
          accepted.set(recordId, answeredAt - performance.timeOrigin);
          if (!inTable.has(recordId)) watch.push(recordId);
          noteLanding(recordId);
        }
        (localTable ?? observer!).watch(watch);
      });
    /** Each submitted record's latency until `at(id)`, ascending. */
    const sortedLatencies = (submitted: Map<string, number>, at: (id: string) => number) =>
      [...submitted].map(([id, t0]) => at(id) - t0).sort((a, b) => a - b);
    const targetLatency = (submitted: Map<string, number>, seenAt: Map<string, number>) => {
      const sorted = sortedLatencies(submitted, (id) => seenAt.get(id)!);
      return {
        p50: Math.round(percentile(sorted, 50)),
        p99: Math.round(percentile(sorted, 99)),
      };
    };
    const landed = (id: string) => Math.max(inTable.get(id)!, inFile.get(id)!, hooks.get(id)!);
    const settle = async (
      submitted: Map<string, number>,
      started: number,
      submittedAt: number,
      cpuAtStart: NodeJS.CpuUsage,
    ): Promise<Phase> => {
      const deadline = Date.now() + Number(process.env.BENCH_SETTLE_MS ?? 600_000);
      while (phaseLanded < submitted.size) {
        if (Date.now() > deadline)
          throw new Error(
            `records did not reach all targets within 10 minutes: of ${submitted.size}, ` +
              `${[...submitted.keys()].filter((id) => inTable.has(id)).length} in the table, ` +
              `${[...submitted.keys()].filter((id) => inFile.has(id)).length} in the file, ` +
              `${[...submitted.keys()].filter((id) => hooks.has(id)).length} at the webhook`,
          );
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const cpu = process.cpuUsage(cpuAtStart);
      const latencies = sortedLatencies(submitted, landed);
      const seconds = (Math.max(...[...submitted.keys()].map(landed)) - started) / 1000;
      return {
        records: submitted.size,
        seconds: Math.round(seconds * 100) / 100,
        perSecond: Math.round(submitted.size / seconds),
        submitPerSecond: Math.round(submitted.size / ((submittedAt - started) / 1000)),
        cpuMsPerRecord: Math.round(((cpu.user + cpu.system) / 1000 / submitted.size) * 1000) / 1000,
        targetsMs: {
          accepted: targetLatency(submitted, accepted),
          table: targetLatency(submitted, inTable),
          file: targetLatency(submitted, inFile),
          webhook: targetLatency(submitted, hooks),
        },
        latencyMs: {
          p50: Math.round(percentile(latencies, 50)),
          p95: Math.round(percentile(latencies, 95)),
          p99: Math.round(percentile(latencies, 99)),
          max: Math.round(latencies.at(-1)!),
        },
      };
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

    if (WARM_UP > 0) {
      const warm = new Map<string, number>();
      phase = warm;
      phaseLanded = 0;
      await submit(warm, singles(WARM_UP));
      if (WARM_UP_BATCH > 0) await submit(warm, batches(WARM_UP_BATCH));
      await settle(warm, performance.now(), performance.now(), process.cpuUsage());
    }

    // Throughput: as fast as the clients can submit.
    const burst = new Map<string, number>();
    phase = burst;
    phaseLanded = 0;
    await phaseGap();
    mark(`${driver}-throughput`, 'start');
    const cpuBurst = process.cpuUsage();
    const startedBurst = performance.now();
    await submit(burst, singles(RECORDS));
    const throughput = await settle(burst, startedBurst, performance.now(), cpuBurst);
    mark(`${driver}-throughput`, 'end');

    // Batch intake: records:batch requests, a few at once.
    const batched = new Map<string, number>();
    phase = batched;
    phaseLanded = 0;
    await phaseGap();
    mark(`${driver}-batch`, 'start');
    const cpuBatch = process.cpuUsage();
    const startedBatch = performance.now();
    await submit(batched, batches(BATCH_RECORDS));
    const batch = await settle(batched, startedBatch, performance.now(), cpuBatch);
    mark(`${driver}-batch`, 'end');

    // Latency: single POSTs at a steady rate (the issue's goal: p99 ≤ 250 ms at 1,000/s).
    const paced = new Map<string, number>();
    phase = paced;
    phaseLanded = 0;
    await phaseGap();
    mark(`${driver}-paced`, 'start');
    const cpuPaced = process.cpuUsage();
    const startedPaced = performance.now();
    await submit(paced, { kind: 'paced', count: LATENCY_RECORDS, rate: RATE });
    const latency = await settle(paced, startedPaced, performance.now(), cpuPaced);
    mark(`${driver}-paced`, 'end');
    await load.close();
    return {
      driver: driver === 'jetstream' ? 'jetstream' : 'sql-log',
      database: db.engine,
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

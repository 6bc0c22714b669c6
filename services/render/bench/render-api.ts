/**
 * `npm run bench:render-api`: admission latency percentiles and accepted submissions per
 * second with 100 concurrent clients at distinct addresses (Edge-Connecting-IP), then
 * a paced (open-loop) phase offering BENCH_PACED_RATE submissions per second (default 300)
 * for BENCH_PACED_SECONDS (default 10) from distinct addresses, each latency measured
 * from its scheduled start (so a stall counts for every request it delays), then status
 * reads per second, of active jobs and of finished ones. Loopback only, bounded (BENCH_SUBMISSIONS, default 2000;
 * BENCH_READ_SECONDS, default 5). Engines come from the env as in production (embedded
 * PGlite + memory + files by default, in a temp DATA_DIR); no worker runs, so every
 * accepted job stays queued. The clients run on a worker thread (bench/load-client.ts), so
 * the server's event loop is its own, as with a separate load generator.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createClientAddressResolver, createLogger, loadConfig } from '@platform/core';
import { createTestDatabase, madeOsuFixture } from '@platform/testing';
import { buildRenderApp } from '../src/app.js';
import { renderEnvSchema, settingsFromEnv } from '../src/config.js';
import { createRenderContext } from '../src/context.js';
import { openEngines } from '../src/engines.js';
import type { LoadClientData, Phase, PhaseResult } from './load-client.js';

const CONCURRENCY = 100;
const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 2000);
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 5);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 300);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 10);

// The made fixture set (generated on first use), so the bench needs nothing outside the repo.
const replayPath = madeOsuFixture('perfect.osr');
const dataDir = await mkdtemp(join(tmpdir(), 'render-bench-'));
// Each run on a database and Redis keys of its own: jobs a previous run left queued would
// count as the same addresses' active jobs (429s), and its counters as their rate limit.
const database = process.env.DATABASE_URL
  ? await createTestDatabase('render_bench', process.env.DATABASE_URL)
  : undefined;
const env = loadConfig(renderEnvSchema, {
  ...process.env,
  ...(database ? { DATABASE_URL: database.url } : {}),
  REDIS_KEY_PREFIX: `render-bench-${process.pid}-${Date.now()}`,
  DATA_DIR: dataDir,
  MAX_QUEUED: '1000000',
  MAX_RENDERING: '1000000',
  LOG_LEVEL: 'silent',
});
const logger = createLogger({ service: 'render-bench', level: 'silent' });
const settings = settingsFromEnv(env);
const engines = await openEngines(env, logger);
const ctx = createRenderContext({
  ...engines,
  settings,
  logger,
  clientAddress: createClientAddressResolver({}),
});
const app = await buildRenderApp(ctx, { logger });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;

const boundary = '----render-bench';
const replay = await readFile(replayPath);
const body = Buffer.concat([
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="skin"\r\n\r\nDefault\r\n`),
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="replay"; filename="bench.osr"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  ),
  replay,
  Buffer.from(`\r\n--${boundary}--\r\n`),
]);

// The clients run on their own thread (and so their own core), as a separate load
// generator would; this thread only serves. The worker registers tsx itself: Node 20 does
// not carry the main thread's `--import tsx` loader hooks into a worker.
const clientUrl = new URL('./load-client.ts', import.meta.url).href;
const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(clientUrl)}); })`;
const client = new Worker(bootstrap, {
  eval: true,
  workerData: { port, body, boundary, concurrency: CONCURRENCY } satisfies LoadClientData,
});
// BENCH_PROFILE_DIR: a CPU profile of the serving thread per phase (closed-1.cpuprofile,
// paced-2, reads-3, ...), so a cost can be found in the phase it belongs to; the
// profiler's own overhead is in that phase's CPU figure, so compare runs with it off.
const profileDir = process.env.BENCH_PROFILE_DIR;
let profiled = 0;
async function startProfile() {
  if (!profileDir) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name: string) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      await mkdir(profileDir, { recursive: true });
      await writeFile(
        join(profileDir, `${name}-${(profiled += 1)}.cpuprofile`),
        JSON.stringify(profile),
      );
    },
  };
}

/** A phase's result, with the server's CPU time in it (ms; undefined off Linux). */
type Measured = PhaseResult & { serverCpuMs: number | undefined };

/**
 * Runs one phase. The server's CPU is the process's (every thread: event loop, libuv
 * pool, GC, PGlite) minus the client thread's own: a cost per operation that, unlike the
 * wall clock, hardly depends on what else the machine is running.
 */
async function run(phase: Phase): Promise<Measured> {
  const profiler = await startProfile();
  const before = process.cpuUsage();
  const result = await new Promise<PhaseResult>((resolve, reject) => {
    client.once('message', resolve);
    client.once('error', reject);
    client.postMessage(phase);
  });
  const used = process.cpuUsage(before);
  await profiler?.stop(phase.kind);
  const processMs = (used.user + used.system) / 1000;
  const serverCpuMs = result.clientCpuMs === undefined ? undefined : processMs - result.clientCpuMs;
  return { ...result, serverCpuMs };
}

const closed = await run({ kind: 'closed', submissions: SUBMISSIONS });
const paced = await run({ kind: 'paced', rate: PACED_RATE, seconds: PACED_SECONDS });
const jobIds = [...closed.jobIds, ...paced.jobIds];

// Reads of active jobs (every submission above is still queued), then of finished ones:
// the first half of the jobs marked completed, as a worker would leave them.
const activeReads = await run({ kind: 'reads', ids: jobIds, seconds: READ_SECONDS });
const finishedIds = jobIds.slice(0, Math.ceil(jobIds.length / 2));
await ctx.db.query(
  `UPDATE render_jobs SET status = 'completed', progress = 100, started_at = now(), finished_at = now(),
          updated_at = now(), log_key = 'logs/' || id || '.log', video_key = 'videos/' || id || '.mp4',
          thumbnail_key = 'thumbnails/' || id || '.jpg'
    WHERE id = ANY($1::uuid[])`,
  [finishedIds],
);
const finishedReads = await run({ kind: 'reads', ids: finishedIds, seconds: READ_SECONDS });
client.postMessage('close');

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? 'n/a'
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1);
const statusList = (phase: PhaseResult) => phase.statuses.map(([s, c]) => `${s}×${c}`).join(', ');
const perSecond = (phase: PhaseResult) => phase.reads / phase.seconds;
const cpuPer = (phase: Measured, operations: number) =>
  phase.serverCpuMs === undefined || operations === 0
    ? 'n/a'
    : `${(phase.serverCpuMs / operations).toFixed(3)} ms`;
const acceptedOf = (phase: PhaseResult) =>
  phase.statuses.find(([status]) => status === 202)?.[1] ?? 0;

const accepted = acceptedOf(closed);
const latencies = closed.latencies;
console.log(
  `render API benchmark — ${cpus().length} cores, Node ${process.version}, db ${engines.db.engine}, counters ${engines.counters.driver}, storage ${engines.store.driver}; clients on their own thread`,
);
console.log(
  `submissions: ${SUBMISSIONS} from ${CONCURRENCY} concurrent clients at distinct addresses in ${closed.seconds.toFixed(2)} s`,
);
console.log(`  statuses: ${statusList(closed)}`);
console.log(`  accepted/s: ${(accepted / closed.seconds).toFixed(1)}`);
console.log(`  server CPU per accepted submission: ${cpuPer(closed, accepted)}`);
console.log(
  `  admission latency ms: p50 ${percentile(latencies, 50)}  p90 ${percentile(latencies, 90)}  p99 ${percentile(latencies, 99)}  max ${latencies.at(-1)?.toFixed(1)}`,
);
console.log(
  `paced: ${PACED_RATE}/s offered for ${PACED_SECONDS} s from distinct addresses (${paced.latencies.length} answered, done in ${paced.seconds.toFixed(2)} s)`,
);
console.log(`  statuses: ${statusList(paced)}`);
console.log(
  `  latency ms from schedule: p50 ${percentile(paced.latencies, 50)}  p90 ${percentile(paced.latencies, 90)}  p99 ${percentile(paced.latencies, 99)}  max ${paced.latencies.at(-1)?.toFixed(1)}`,
);
console.log(`  server CPU per accepted submission: ${cpuPer(paced, acceptedOf(paced))}`);
console.log(
  `status reads, active jobs: ${perSecond(activeReads).toFixed(1)}/s over ${READ_SECONDS} s with ${CONCURRENCY} clients (${activeReads.errors} errors); server CPU per read ${cpuPer(activeReads, activeReads.reads)}`,
);
console.log(
  `status reads, finished jobs: ${perSecond(finishedReads).toFixed(1)}/s over ${READ_SECONDS} s with ${CONCURRENCY} clients (${finishedReads.errors} errors); server CPU per read ${cpuPer(finishedReads, finishedReads.reads)}`,
);
console.log(
  `load average during the run: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

await app.close();
await ctx.close();
await engines.close();
await database?.drop();
await rm(dataDir, { recursive: true, force: true });

/**
 * `npm run bench:render-api`: admission latency percentiles and accepted submissions per
 * second with 100 concurrent clients at distinct addresses (Edge-Connecting-IP), then
 * a paced (open-loop) phase offering BENCH_PACED_RATE submissions per second (default 300)
 * for BENCH_PACED_SECONDS (default 10) from distinct addresses, each latency measured
 * from its scheduled start (so a stall counts for every request it delays), then status
 * reads per second, of active jobs and of finished ones. Loopback only, bounded (BENCH_SUBMISSIONS, default 2000;
 * BENCH_READ_SECONDS, default 5). Engines come from the env as in production (embedded
 * PGlite + memory + files by default, in a temp DATA_DIR); no worker runs, so every
 * accepted job stays queued.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientAddressResolver, createLogger, loadConfig } from '@platform/core';
import { madeOsuFixture } from '@platform/testing';
import { buildRenderApp } from '../src/app.js';
import { renderEnvSchema, settingsFromEnv } from '../src/config.js';
import { createRenderContext } from '../src/context.js';
import { openEngines } from '../src/engines.js';

const CONCURRENCY = 100;
const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 2000);
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 5);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 300);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 10);

// The made fixture set (generated on first use), so the bench needs nothing outside the repo.
const replayPath = madeOsuFixture('perfect.osr');
const dataDir = await mkdtemp(join(tmpdir(), 'render-bench-'));
const env = loadConfig(renderEnvSchema, {
  ...process.env,
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
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

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

function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  payload?: Buffer,
  via: Agent = agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: via, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(payload);
  });
}

let next = 0;
const latencies: number[] = [];
const statuses = new Map<number, number>();
const jobIds: string[] = [];
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (;;) {
      const n = next++;
      if (n >= SUBMISSIONS) return;
      const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      const t = performance.now();
      const res = await call(
        'POST',
        '/v1/render',
        {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(body.length),
          'edge-connecting-ip': address,
        },
        body,
      );
      latencies.push(performance.now() - t);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 202) jobIds.push(JSON.parse(res.body).job_id);
    }
  }),
);
const submitSeconds = (performance.now() - started) / 1000;

latencies.sort((a, b) => a - b);
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1);
const pct = (p: number) => percentile(latencies, p);

// Paced phase: requests start on schedule whatever the earlier ones are doing; each
// comes from an address no other phase uses (172.16.0.0/12).
const pacedAgent = new Agent({ keepAlive: true, maxSockets: Infinity });
const pacedLatencies: number[] = [];
const pacedStatuses = new Map<number, number>();
const pacedTotal = Math.round(PACED_RATE * PACED_SECONDS);
const pacedStart = performance.now() + 50;
const pacedCalls: Promise<void>[] = [];
for (let n = 0; n < pacedTotal; n += 1) {
  const due = pacedStart + (n * 1000) / PACED_RATE;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  const address = `172.${16 + ((n >> 16) & 15)}.${(n >> 8) & 255}.${n & 255}`;
  pacedCalls.push(
    call(
      'POST',
      '/v1/render',
      {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(body.length),
        'edge-connecting-ip': address,
      },
      body,
      pacedAgent,
    ).then(
      (res) => {
        pacedLatencies.push(performance.now() - due);
        pacedStatuses.set(res.status, (pacedStatuses.get(res.status) ?? 0) + 1);
        if (res.status === 202) jobIds.push(JSON.parse(res.body).job_id);
      },
      () => {
        pacedStatuses.set(0, (pacedStatuses.get(0) ?? 0) + 1);
      },
    ),
  );
}
await Promise.all(pacedCalls);
const pacedSeconds = (performance.now() - pacedStart) / 1000;
pacedLatencies.sort((a, b) => a - b);
pacedAgent.destroy();

/** `CONCURRENCY` clients reading `ids` round-robin for `READ_SECONDS`. */
async function readPhase(ids: string[]): Promise<{ perSecond: number; errors: number }> {
  let reads = 0;
  let errors = 0;
  const until = performance.now() + READ_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, i) => {
      while (performance.now() < until) {
        const id = ids[(reads + i) % ids.length]!;
        const res = await call('GET', `/v1/jobs/${id}`, {});
        if (res.status === 200) reads += 1;
        else errors += 1;
      }
    }),
  );
  return { perSecond: reads / READ_SECONDS, errors };
}

// Reads of active jobs (every submission above is still queued), then of finished ones:
// the first half of the jobs marked completed, as a worker would leave them.
const activeReads = await readPhase(jobIds);
const finishedIds = jobIds.slice(0, Math.ceil(jobIds.length / 2));
await ctx.db.query(
  `UPDATE render_jobs SET status = 'completed', progress = 100, started_at = now(), finished_at = now(),
          updated_at = now(), log_key = 'logs/' || id || '.log', video_key = 'videos/' || id || '.mp4',
          thumbnail_key = 'thumbnails/' || id || '.jpg'
    WHERE id = ANY($1::uuid[])`,
  [finishedIds],
);
const finishedReads = await readPhase(finishedIds);

const accepted = statuses.get(202) ?? 0;
console.log(
  `render API benchmark — ${cpus().length} cores, Node ${process.version}, db ${engines.db.engine}, counters ${engines.counters.driver}, storage ${engines.store.driver}`,
);
console.log(
  `submissions: ${SUBMISSIONS} from ${CONCURRENCY} concurrent clients at distinct addresses in ${submitSeconds.toFixed(2)} s`,
);
console.log(`  statuses: ${[...statuses].map(([s, c]) => `${s}×${c}`).join(', ')}`);
console.log(`  accepted/s: ${(accepted / submitSeconds).toFixed(1)}`);
console.log(
  `  admission latency ms: p50 ${pct(50)}  p90 ${pct(90)}  p99 ${pct(99)}  max ${latencies.at(-1)!.toFixed(1)}`,
);
console.log(
  `paced: ${PACED_RATE}/s offered for ${PACED_SECONDS} s from distinct addresses (${pacedTotal} submissions, done in ${pacedSeconds.toFixed(2)} s)`,
);
console.log(`  statuses: ${[...pacedStatuses].map(([s, c]) => `${s}×${c}`).join(', ')}`);
console.log(
  `  latency ms from schedule: p50 ${percentile(pacedLatencies, 50)}  p90 ${percentile(pacedLatencies, 90)}  p99 ${percentile(pacedLatencies, 99)}  max ${pacedLatencies.at(-1)?.toFixed(1)}`,
);
console.log(
  `status reads, active jobs: ${activeReads.perSecond.toFixed(1)}/s over ${READ_SECONDS} s with ${CONCURRENCY} clients (${activeReads.errors} errors)`,
);
console.log(
  `status reads, finished jobs: ${finishedReads.perSecond.toFixed(1)}/s over ${READ_SECONDS} s with ${CONCURRENCY} clients (${finishedReads.errors} errors)`,
);

agent.destroy();
await app.close();
await ctx.close();
await engines.close();
await rm(dataDir, { recursive: true, force: true });

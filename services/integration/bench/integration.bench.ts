/**
 * `npm run bench:integration`: records per second from submission to all three targets
 * (relational table, csv file, webhook) and end-to-end latency percentiles, for each
 * broker driver: the SQL log on PGlite (the embedded default) and JetStream (with
 * PostgreSQL when it answers, else PGlite), skipped loudly when NATS is absent.
 *
 * The whole platform runs in this process through `startPlatform` (the `npm start`
 * wiring), with the interns contract attached to relational (shaped), csv and a webhook
 * served by a local HTTP server. Records are POSTed over HTTP with a fixed concurrency;
 * a record's latency is from the start of its POST until it is visible in the last of
 * the three targets (webhook: arrival; table and file: polled every 20 ms).
 *
 * Three phases per driver: throughput (BENCH_RECORDS single POSTs as fast as
 * BENCH_CONCURRENCY clients can submit; latency there is mostly queueing), batch
 * (BENCH_BATCH_RECORDS through `records:batch`, BENCH_BATCH_SIZE a request,
 * BENCH_BATCH_CONCURRENCY requests at once) and latency (BENCH_LATENCY_RECORDS submitted
 * at a steady BENCH_RATE per second, well under capacity).
 *
 *   BENCH_RECORDS=2000 BENCH_BATCH_RECORDS=10000 BENCH_RATE=20 BENCH_DRIVERS=sql-log,jetstream npm run bench:integration
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createSqlDatabase, loadConfig, type SqlDatabase } from '@platform/core';
import {
  createTestDatabase,
  natsUrlForTests,
  postgresUrlForTests,
  type TestDatabase,
} from '@platform/testing';
import { integrationEnvSchema } from '../src/config.js';
import { startPlatform, type RunningPlatform } from '../src/platform.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const LATENCY_RECORDS = Number(process.env.BENCH_LATENCY_RECORDS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const BATCH_RECORDS = Number(process.env.BENCH_BATCH_RECORDS ?? 5000);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 500);
const BATCH_CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 4);
const DRIVERS = (process.env.BENCH_DRIVERS ?? 'sql-log,jetstream').split(',').map((d) => d.trim());
const POLL_MS = 20;

interface Phase {
  records: number;
  seconds: number;
  /** Records per second from the first submission until every record is in all three targets. */
  perSecond: number;
  submitPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
}

interface Result {
  driver: string;
  database: string;
  throughput: Phase;
  batch: Phase;
  latency: Phase;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function webhookServer(seen: Map<string, number>): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { recordId: string };
      if (!seen.has(envelope.recordId)) seen.set(envelope.recordId, performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`,
  };
}

async function runDriver(driver: string): Promise<Result | undefined> {
  const natsUrl = driver === 'jetstream' ? await natsUrlForTests() : undefined;
  if (driver === 'jetstream' && !natsUrl) {
    process.stderr.write(
      '\nSKIP: NATS JetStream is not available here — the jetstream figures were NOT measured.\n\n',
    );
    return undefined;
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'integration-bench-'));
  const usePostgres = driver === 'jetstream' && (await postgresUrlForTests()) !== undefined;
  let testDb: TestDatabase | undefined;
  if (usePostgres) testDb = await createTestDatabase('integration_bench');
  const db: SqlDatabase = await createSqlDatabase({
    url: testDb?.url,
    dataDir: testDb ? 'unused' : join(dataDir, 'pglite'),
  });
  const logger = createLogger({ service: 'integration-bench', level: 'warn' });
  const env = {
    ...loadConfig(integrationEnvSchema, {
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ATTACHMENT_REFRESH_MS: '500',
      ...(natsUrl ? { NATS_URL: natsUrl } : {}),
    }),
    PORT: 0,
    RELATIONAL_ADAPTER_PORT: 0,
    CSV_ADAPTER_PORT: 0,
    CONTROL_PLANE_PORT: 0,
    WEBHOOK_ADAPTER_PORT: 0,
  };
  const hooks = new Map<string, number>();
  const hook = await webhookServer(hooks);
  let platform: RunningPlatform | undefined;
  try {
    platform = await startPlatform({ env, logger, db });
    const cp = platform.urls['control-plane']!;
    const attach = await fetch(`${cp}/contracts/interns/adapters`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        adapterType: 'webhook',
        config: { url: hook.url, authType: 'bearer', token: 'bench-token' },
      }),
    });
    if (attach.status !== 201)
      throw new Error(`webhook attachment: ${attach.status} ${await attach.text()}`);
    for (const adapter of platform.adapters) await adapter.runtime.refresh();

    const inTable = new Map<string, number>();
    const inFile = new Map<string, number>();
    const csvPath = join(dataDir, 'integration', 'csv', 'interns.csv');
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const now = performance.now();
        const { rows } = await db.query<{ record_id: string }>(
          'SELECT record_id::text AS record_id FROM interns',
        );
        for (const row of rows) if (!inTable.has(row.record_id)) inTable.set(row.record_id, now);
        const text = await readFile(csvPath, 'utf8').catch(() => '');
        for (const line of text.split('\r\n')) {
          const id = line.slice(0, 36);
          if (id.length === 36 && !inFile.has(id)) inFile.set(id, now);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();
    const submission = platform.urls.submission!;
    const run = randomBytes(3).toString('hex');
    let serial = 0;
    const intern = () => {
      const i = serial++;
      return {
        internId: `B-${run}-${i}`,
        firstName: 'Bench',
        lastName: `Mark ${i}`,
        email: `bench${i}@example.org`,
        college: 'Load College, Testshire',
        department: 'Performance',
        startDate: '2025-01-01',
      };
    };
    const submit = async (submitted: Map<string, number>) => {
      const t0 = performance.now();
      const response = await fetch(`${submission}/contracts/interns/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(intern()),
      });
      if (response.status !== 202)
        throw new Error(`submission answered ${response.status}: ${await response.text()}`);
      submitted.set(((await response.json()) as { recordId: string }).recordId, t0);
    };
    const submitBatch = async (submitted: Map<string, number>, size: number) => {
      const t0 = performance.now();
      const response = await fetch(`${submission}/contracts/interns/records:batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ records: Array.from({ length: size }, intern) }),
      });
      if (response.status !== 200)
        throw new Error(`batch submission answered ${response.status}: ${await response.text()}`);
      for (const result of (
        (await response.json()) as {
          results: Array<{ status: number; recordId: string; detail?: string }>;
        }
      ).results) {
        if (result.status !== 202)
          throw new Error(`a batched record answered ${result.status}: ${result.detail}`);
        submitted.set(result.recordId, t0);
      }
    };
    const landed = (id: string) => Math.max(inTable.get(id)!, inFile.get(id)!, hooks.get(id)!);
    const settle = async (
      submitted: Map<string, number>,
      started: number,
      submittedAt: number,
    ): Promise<Phase> => {
      const deadline = Date.now() + 600_000;
      while (
        ![...submitted.keys()].every((id) => inTable.has(id) && inFile.has(id) && hooks.has(id))
      ) {
        if (Date.now() > deadline)
          throw new Error('records did not reach all targets within 10 minutes');
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const latencies = [...submitted].map(([id, t0]) => landed(id) - t0).sort((a, b) => a - b);
      const seconds = (Math.max(...[...submitted.keys()].map(landed)) - started) / 1000;
      return {
        records: submitted.size,
        seconds: Math.round(seconds * 100) / 100,
        perSecond: Math.round(submitted.size / seconds),
        submitPerSecond: Math.round(submitted.size / ((submittedAt - started) / 1000)),
        latencyMs: {
          p50: Math.round(percentile(latencies, 50)),
          p95: Math.round(percentile(latencies, 95)),
          p99: Math.round(percentile(latencies, 99)),
          max: Math.round(latencies.at(-1)!),
        },
      };
    };

    // Throughput: as fast as the clients can submit.
    const burst = new Map<string, number>();
    let left = RECORDS;
    const startedBurst = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left > 0) {
          left -= 1;
          await submit(burst);
        }
      }),
    );
    const throughput = await settle(burst, startedBurst, performance.now());

    // Batch intake: records:batch requests, a few at once.
    const batched = new Map<string, number>();
    let batchLeft = BATCH_RECORDS;
    const startedBatch = performance.now();
    await Promise.all(
      Array.from({ length: BATCH_CONCURRENCY }, async () => {
        while (batchLeft > 0) {
          const size = Math.min(BATCH_SIZE, batchLeft);
          batchLeft -= size;
          await submitBatch(batched, size);
        }
      }),
    );
    const batch = await settle(batched, startedBatch, performance.now());

    // Latency: a steady rate well under capacity.
    const paced = new Map<string, number>();
    const startedPaced = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < LATENCY_RECORDS; i += 1) {
      const due = startedPaced + (i * 1000) / RATE;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      inFlight.push(submit(paced));
    }
    await Promise.all(inFlight);
    const latency = await settle(paced, startedPaced, performance.now());
    polling = false;
    await poller;
    return {
      driver: driver === 'jetstream' ? 'jetstream' : 'sql-log',
      database: db.engine,
      throughput,
      batch,
      latency,
    };
  } finally {
    await platform?.close();
    await db.close().catch(() => undefined);
    await testDb?.drop();
    hook.server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const results: Result[] = [];
for (const driver of DRIVERS) {
  const result = await runDriver(driver);
  if (result) {
    results.push(result);
    console.log(JSON.stringify(result));
  }
}
console.log(
  `\nintegration bench: ${RECORDS} records at concurrency ${CONCURRENCY}, ${BATCH_RECORDS} in batches of ${BATCH_SIZE} (${BATCH_CONCURRENCY} requests at once), then ${LATENCY_RECORDS} at ${RATE}/s (latency: POST start → visible in all three targets)`,
);
console.log(
  'driver     database  phase       records  seconds  end-to-end rec/s  submit rec/s  p50 ms  p95 ms  p99 ms  max ms',
);
for (const r of results) {
  for (const [name, p] of [
    ['throughput', r.throughput],
    ['batch', r.batch],
    ['latency', r.latency],
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
        String(p.latencyMs.p50).padStart(7),
        String(p.latencyMs.p95).padStart(7),
        String(p.latencyMs.p99).padStart(7),
        String(p.latencyMs.max).padStart(7),
      ].join(' '),
    );
  }
}
process.exit(0);

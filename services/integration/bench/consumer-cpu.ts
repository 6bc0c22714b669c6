/**
 * The consumer side alone (issue 11): the three adapters (relational shaped on PostgreSQL,
 * csv with fsync, a webhook posting arrays of `CONSUMER_BENCH_WEBHOOK_BATCH`, default
 * 100, to a local receiver) reading interns creates from JetStream, no intake. Prints one
 * JSON line per round with the process's CPU per record until every adapter committed
 * every record, and the mean batch the relational adapter saw.
 *
 * Two modes (`CONSUMER_BENCH_MODE`, default `drain`):
 * - `drain`: `CONSUMER_BENCH_RECORDS` (default 10,000) published first, the adapters
 *   started after (the batch phase's backlog: full batches); CPU from the start.
 * - `paced`: the adapters running, records published at `CONSUMER_BENCH_RATE` per second
 *   (default 1,000: the paced phase's small, lingering batches); CPU includes publishing
 *   (~20 µs a record, the same on both sides of an A/B).
 *
 * `CONSUMER_BENCH_ROUNDS` (default 1) rounds in one process, each with fresh topics and
 * adapters (the first round warms the JIT). Compare code by CPU per record, alternately.
 * `CONSUMER_BENCH_NATS_PID`: a nats-server of the bench's own (`NATS_URL`); its CPU in the
 * same window is printed a record too (`natsCpuMsPerRecord`), the server's side of the
 * client's pulls, acks and deliveries. `CONSUMER_BENCH_PG_CPU=1`: the CPU of the PostgreSQL
 * backends connected to the bench's database (the adapters' pool: the relational target's
 * statements), from `/proc`, a record (`pgCpuMsPerRecord`; PostgreSQL on this machine;
 * its WAL writer and checkpointer not counted). `monotonic` is the window on the clock a
 * `--cpu-prof` stamps its samples with (µs), for cutting a profile to the rounds measured.
 *
 *   node --import tsx services/integration/bench/consumer-cpu.ts
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import { createTestDatabase, postgresUrlForTests, type TestDatabase } from '@platform/testing';
import { buildCsvAdapter } from '../src/adapters/csv/build-csv-adapter.js';
import { buildRelationalAdapter } from '../src/adapters/relational/build-relational-adapter.js';
import type { Adapter } from '../src/adapters/runtime/build-adapter.js';
import { buildWebhookAdapter } from '../src/adapters/webhook/build-webhook-adapter.js';
import { startHarness } from '../test/helpers/adapter-harness.js';
import { BROKER_DRIVERS, waitFor } from '../test/helpers/broker-drivers.js';
import { internCreated, INTERNS } from '../test/helpers/records.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';

const MODE = process.env.CONSUMER_BENCH_MODE ?? 'drain';
const RECORDS = Number(process.env.CONSUMER_BENCH_RECORDS ?? 10_000);
const RATE = Number(process.env.CONSUMER_BENCH_RATE ?? 1000);
const ROUNDS = Number(process.env.CONSUMER_BENCH_ROUNDS ?? 1);
const WEBHOOK_BATCH = Number(process.env.CONSUMER_BENCH_WEBHOOK_BATCH ?? 100);
/** Which adapters run (one alone shows its own share). */
const ADAPTERS = (process.env.CONSUMER_BENCH_ADAPTERS ?? 'relational,csv,webhook').split(',');

const driver = BROKER_DRIVERS.find((d) => d.name === 'jetstream')!;
const missing = await driver.missing();
if (missing || !(await postgresUrlForTests())) {
  console.log(`SKIP: ${missing ?? 'PostgreSQL'} not reachable — nothing measured`);
  process.exit(0);
}

const NATS_PID = process.env.CONSUMER_BENCH_NATS_PID;
/** The nats-server's CPU so far in ms (user + system, from /proc), or 0 without a pid. */
async function natsCpuMs(): Promise<number> {
  if (!NATS_PID) return 0;
  const stat = await readFile(`/proc/${NATS_PID}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
}
/** CPU ms so far of each PostgreSQL backend connected to `db`'s database (from /proc). */
async function pgBackendsCpuMs(db: SqlDatabase): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (process.env.CONSUMER_BENCH_PG_CPU !== '1') return cpu;
  const { rows } = await db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
  );
  for (const { pid } of rows) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpu.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
  }
  return cpu;
}
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Records the adapter committed on the interns topics (its consumer's offsets, in memory). */
/** Set by a preload that counts writes (optional): reset when the measure starts, printed with it. */
const writeCounter = (
  globalThis as { __countWrites?: { reset(): void; counts: Map<string, number> } }
).__countWrites;

const committed = (adapter: Adapter) =>
  adapter.runtime
    .status()
    .assignments.filter((a) => a.topic.startsWith('interns.'))
    .reduce((sum, a) => sum + a.committedOffset, 0);

for (let round = 1; round <= ROUNDS; round += 1) {
  const harness = await startHarness(driver);
  const dir = await mkdtemp(join(tmpdir(), 'consumer-bench-'));
  const receiver = await startWebhookReceiver();
  const testDb: TestDatabase = await createTestDatabase('consumerbench');
  const db: SqlDatabase = await createSqlDatabase({ url: testDb.url, dataDir: 'unused' });
  const adapters: Adapter[] = [];
  try {
    const deps = () => harness.adapterDeps({ refreshIntervalMs: 5000 });
    if (ADAPTERS.includes('relational')) {
      harness.controlPlane.attach(INTERNS, 'relational', { mode: 'shaped', table: 'interns' });
      adapters.push(await buildRelationalAdapter({ ...deps(), db }));
    }
    if (ADAPTERS.includes('csv')) {
      harness.controlPlane.attach(INTERNS, 'csv', { path: 'interns.csv' });
      adapters.push(await buildCsvAdapter({ ...deps(), baseDir: join(dir, 'csv') }));
    }
    if (ADAPTERS.includes('webhook')) {
      harness.controlPlane.attach(INTERNS, 'webhook', {
        url: `${receiver.url}/hook`,
        authType: 'bearer',
        token: 'bench',
        ...(WEBHOOK_BATCH > 0 ? { batch: { maxRecords: WEBHOOK_BATCH } } : {}),
      });
      adapters.push(
        await buildWebhookAdapter({
          ...deps(),
          stateDir: join(dir, 'webhook'),
          allowedOutbound: ['127.0.0.1'],
        }),
      );
    }
    const publishAll = async (count: number, from: number) => {
      const sends: Promise<unknown>[] = [];
      for (let i = from; i < from + count; i += 1)
        sends.push(harness.publish({ ...internCreated(`I-${i}`), revision: 1 } as never));
      await Promise.all(sends);
    };
    let cpu: NodeJS.CpuUsage;
    let natsFrom = 0;
    let pgFrom = new Map<number, number>();
    let monotonicFrom = 0;
    const started = performance.now();
    let cpuFrom = started;
    if (MODE === 'drain') {
      for (let i = 0; i < RECORDS; i += 500) await publishAll(Math.min(500, RECORDS - i), i);
      cpu = process.cpuUsage();
      cpuFrom = performance.now();
      natsFrom = await natsCpuMs();
      pgFrom = await pgBackendsCpuMs(db);
      monotonicFrom = monotonicUs();
      writeCounter?.reset();
      for (const adapter of adapters) await adapter.start();
    } else {
      for (const adapter of adapters) await adapter.start();
      cpu = process.cpuUsage();
      cpuFrom = performance.now();
      natsFrom = await natsCpuMs();
      pgFrom = await pgBackendsCpuMs(db);
      monotonicFrom = monotonicUs();
      writeCounter?.reset();
      let sent = 0;
      const begun = performance.now();
      while (sent < RECORDS) {
        const due = Math.min(RECORDS, Math.round(((performance.now() - begun) / 1000) * RATE));
        if (due > sent) {
          await publishAll(due - sent, sent);
          sent = due;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    const measuredFrom = performance.now();
    await waitFor(
      'every adapter committed every record',
      () => adapters.every((a) => committed(a) >= RECORDS),
      600_000,
      10,
    );
    const used = process.cpuUsage(cpu);
    const natsUsed = (await natsCpuMs()) - natsFrom;
    let pgUsed = 0;
    for (const [pid, ms] of await pgBackendsCpuMs(db)) pgUsed += ms - (pgFrom.get(pid) ?? 0);
    console.log(
      JSON.stringify({
        mode: MODE,
        round,
        records: RECORDS,
        ...(MODE === 'paced' ? { rate: RATE } : {}),
        webhookBatch: WEBHOOK_BATCH,
        cpuMsPerRecord: Number(((used.user + used.system) / 1000 / RECORDS).toFixed(4)),
        userMs: Math.round(used.user / 1000),
        systemMs: Math.round(used.system / 1000),
        ...(NATS_PID ? { natsCpuMsPerRecord: Number((natsUsed / RECORDS).toFixed(4)) } : {}),
        ...(process.env.CONSUMER_BENCH_PG_CPU === '1'
          ? { pgCpuMsPerRecord: Number((pgUsed / RECORDS).toFixed(4)) }
          : {}),
        seconds: Number(((performance.now() - measuredFrom) / 1000).toFixed(2)),
        totalSeconds: Number(((performance.now() - started) / 1000).toFixed(2)),
        webhookRequests: receiver.deliveries.length,
        adapters: ADAPTERS,
        ...(writeCounter ? { writes: Object.fromEntries(writeCounter.counts) } : {}),
        // the measured window in seconds since the process started (a --cpu-prof's clock)
        window: [
          Number((cpuFrom / 1000).toFixed(2)),
          Number((performance.now() / 1000).toFixed(2)),
        ],
        monotonic: [monotonicFrom, monotonicUs()],
      }),
    );
  } finally {
    for (const adapter of adapters) await adapter.stop();
    await harness.cleanup();
    await receiver.close();
    await db.close();
    await testDb.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

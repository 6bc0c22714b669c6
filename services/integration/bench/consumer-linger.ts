/**
 * The JetStream consumer's linger (`JetStreamBrokerOptions.lingerMs`) on its own: a
 * publisher paced at `LINGER_BENCH_RATE` records/s (default 1500) over 3 partitions, and
 * 3 consumer groups (the platform's three adapters) whose handler writes each batch to
 * PostgreSQL in one transaction (a multi-row insert), as the relational target does.
 * Prints, per linger in `LINGER_BENCH_MS` (default "0,20"; run them alternately), the
 * process's CPU per record (publishing included, the same on both sides), the mean
 * batch, and the latency publish → handler (p50/p99). Streams and database of its own.
 * `LINGER_BENCH_SECONDS` (default 10) of publishing per linger.
 */
import { createSqlDatabase } from '@platform/core';
import { createTestDatabase } from '@platform/testing';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../test/helpers/broker-drivers.js';

const RATE = Number(process.env.LINGER_BENCH_RATE ?? 1500);
const SECONDS = Number(process.env.LINGER_BENCH_SECONDS ?? 10);
const LINGERS = (process.env.LINGER_BENCH_MS ?? '0,20').split(',').map(Number);
const GROUPS = 3;

const driver = BROKER_DRIVERS.find((d) => d.name === 'jetstream')!;
const missing = await driver.missing();
if (missing) {
  console.log(`SKIP: ${missing} not reachable — nothing measured`);
  process.exit(0);
}
const pgDb = await createTestDatabase('lingerbench');
const db = await createSqlDatabase({ url: pgDb.url, dataDir: 'memory://' });
await db.query('CREATE TABLE applied (grp int, id text, PRIMARY KEY (grp, id))');
try {
  for (const lingerMs of LINGERS) {
    const open = await driver.open(undefined, { lingerMs });
    try {
      const topic = uniqueName('linger');
      await open.broker.ensureTopic({ name: topic, partitions: 3 });
      const sentAt = new Map<string, number>();
      const latencies: number[] = [];
      let batches = 0;
      let handled = 0;
      const consumers = await Promise.all(
        Array.from({ length: GROUPS }, (_, grp) =>
          open.broker.subscribeBatches(
            { groupId: uniqueName(`g${grp}`), topics: [topic] },
            async (batch) => {
              const ids = batch.map((r) => r.value.toString());
              await db.transaction((tx) =>
                tx.query(
                  'INSERT INTO applied SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
                  [grp, ids],
                ),
              );
              const now = performance.now();
              for (const id of ids) latencies.push(now - sentAt.get(id)!);
              batches += 1;
              handled += ids.length;
            },
          ),
        ),
      );
      const total = RATE * SECONDS;
      const cpu = process.cpuUsage();
      let sent = 0;
      const publishes: Promise<unknown>[] = [];
      await new Promise<void>((resolve) => {
        const started = performance.now();
        const timer = setInterval(() => {
          const due = Math.min(total, Math.round(((performance.now() - started) / 1000) * RATE));
          for (; sent < due; sent += 1) {
            const id = `r${sent}`;
            sentAt.set(id, performance.now());
            publishes.push(open.broker.publish(topic, `k${sent % 997}`, id));
          }
          if (sent >= total) {
            clearInterval(timer);
            resolve();
          }
        }, 10);
      });
      await Promise.all(publishes);
      await waitFor(
        'every record handled by every group',
        () => handled >= total * GROUPS,
        600_000,
      );
      const used = process.cpuUsage(cpu);
      for (const consumer of consumers) await consumer.stop();
      latencies.sort((a, b) => a - b);
      const at = (q: number) => Math.round(latencies[Math.floor(q * (latencies.length - 1))]!);
      console.log(
        JSON.stringify({
          lingerMs,
          rate: RATE,
          records: total,
          cpuMsPerRecord: Number(((used.user + used.system) / 1000 / total).toFixed(3)),
          meanBatch: Number((handled / batches).toFixed(1)),
          latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
        }),
      );
    } finally {
      await open.cleanup();
    }
  }
} finally {
  await db.close();
  await pgDb.drop();
}

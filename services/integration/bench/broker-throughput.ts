/**
 * Raw broker throughput per driver: publish N records over 3 partitions, then consume
 * them with a no-op handler in one group. `BROKER_BENCH_RECORDS` (default 5000),
 * `BROKER_DRIVERS` to narrow.
 */
import { selectedDrivers, waitFor } from '../test/helpers/broker-drivers.js';

const records = Number(process.env.BROKER_BENCH_RECORDS ?? 5000);
for (const driver of selectedDrivers()) {
  const missing = await driver.missing();
  if (missing) {
    console.log(`SKIP ${driver.name}: ${missing} not reachable`);
    continue;
  }
  const open = await driver.open();
  try {
    await open.broker.ensureTopic({ name: 'bench.created', partitions: 3 });
    const payload = JSON.stringify({ hello: 'x'.repeat(300) });
    let started = Date.now();
    for (let i = 0; i < records; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, records - i) }, (_, j) =>
          open.broker.publish('bench.created', `k${(i + j) % 997}`, payload),
        ),
      );
    }
    const publishSeconds = (Date.now() - started) / 1000;
    let seen = 0;
    started = Date.now();
    const consumer = await open.broker.subscribe(
      { groupId: 'bench', topics: ['bench.created'] },
      async () => void (seen += 1),
    );
    await waitFor('all consumed', () => seen >= records, 600_000);
    const consumeSeconds = (Date.now() - started) / 1000;
    await consumer.stop();
    console.log(
      `${driver.name}: publish ${Math.round(records / publishSeconds)} records/s, consume+commit ${Math.round(records / consumeSeconds)} records/s (${records} records, 3 partitions)`,
    );
  } finally {
    await open.cleanup();
  }
}

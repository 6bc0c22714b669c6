/**
 * `npm run bench:integration-soak`: 100,000 events (SOAK_RECORDS) through each broker
 * driver (SOAK_DRIVERS, default sql-log-pglite-thread,jetstream: the two defaults, the
 * embedded one with its PGlite on a thread; also sql-log-pglite, PGlite in memory on the
 * main thread, and sql-log-postgres) with a paused-and-resumed relational adapter and a
 * restarted csv adapter; prints throughput and the exactly-once and per-key-order verdict.
 * Exits 1 when a check fails. SOAK_TIMEOUT_MS bounds the drain (default 30 min);
 * SOAK_CSV_FSYNC=0 turns off the csv fsyncs.
 */
import { createLogger } from '@platform/core';
import { natsUrlForTests } from '@platform/testing';
import { runWithServiceNodeOptions } from './service-node-options.js';
import { runSoak, type SoakOptions } from './soak-core.js';

runWithServiceNodeOptions();

const records = Number(process.env.SOAK_RECORDS ?? 100_000);
const drivers = (process.env.SOAK_DRIVERS ?? 'sql-log-pglite-thread,jetstream').split(
  ',',
) as SoakOptions['driver'][];
let failed = false;
for (const driver of drivers) {
  if (driver === 'jetstream' && !(await natsUrlForTests())) {
    console.log(`SKIP jetstream: NATS is not reachable`);
    continue;
  }
  console.log(`soak: ${records} events on ${driver}`);
  const result = await runSoak({
    driver,
    records,
    csvDurable: process.env.SOAK_CSV_FSYNC !== '0',
    timeoutMs: Number(process.env.SOAK_TIMEOUT_MS ?? 30 * 60_000),
    log: (line) => console.log(line),
    logger: createLogger({ service: 'soak', level: 'warn' }),
  });
  console.log(
    `  ${result.driver}: ${result.records} events (${result.keys} keys) — published in ${result.publishSeconds.toFixed(1)} s, ` +
      `all targets complete in ${result.totalSeconds.toFixed(1)} s (${result.recordsPerSecond} events/s per target); ` +
      `relational ${result.perAdapterSeconds.relational?.toFixed(1)} s, csv ${result.perAdapterSeconds.csv?.toFixed(1)} s, webhook ${result.perAdapterSeconds.webhook?.toFixed(1)} s; ` +
      `CPU ${result.cpuMsPerEvent} ms per event`,
  );
  console.log(
    result.problems.length
      ? `  FAILED: ${result.problems.join('; ')}`
      : '  exactly once and in per-key order on every target: OK',
  );
  failed ||= result.problems.length > 0;
}
process.exit(failed ? 1 : 0);

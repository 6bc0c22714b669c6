/**
 * One adapter process for the kill test (`test/adapters/adapter-kill.test.ts`): the csv
 * and relational adapters on the broker the environment names (`KILL_DRIVER`: sql-log on
 * `KILL_DATABASE_URL`, or jetstream on `NATS_URL` under `KILL_PREFIX`), attachments from
 * the control-plane stand-in at `KILL_CONTROL_PLANE_URL`, csv files under `KILL_CSV_DIR`.
 * It prints one JSON line with the adapters' admin URLs once started, and runs until killed.
 */
import { createSqlDatabase } from '@platform/core';
import { buildCsvAdapter } from '../../src/adapters/csv/build-csv-adapter.js';
import { buildRelationalAdapter } from '../../src/adapters/relational/build-relational-adapter.js';
import { createControlPlaneClient } from '../../src/adapters/runtime/control-plane-client.js';
import { createJetStreamBroker } from '../../src/broker/jetstream/jetstream-broker.js';
import { createSqlLogBroker } from '../../src/broker/sql-log/sql-log-broker.js';
import { silentLogger } from './broker-drivers.js';

const env = process.env;
const logger = silentLogger();
const db = await createSqlDatabase({ url: env.KILL_DATABASE_URL!, dataDir: 'unused', poolSize: 4 });
const broker =
  env.KILL_DRIVER === 'jetstream'
    ? await createJetStreamBroker({ url: env.NATS_URL!, logger, prefix: env.KILL_PREFIX! })
    : await createSqlLogBroker({ db, logger, pollIntervalMs: 100 });
const deps = {
  broker,
  logger,
  attachments: createControlPlaneClient({ baseUrl: env.KILL_CONTROL_PLANE_URL!, timeoutMs: 2000 }),
  refreshIntervalMs: 500,
  retry: { maxAttempts: 3, initialBackoffMs: 20, maxBackoffMs: 100 },
};
const adapters = [
  await buildCsvAdapter({ ...deps, baseDir: env.KILL_CSV_DIR! }),
  await buildRelationalAdapter({ ...deps, db }),
];
const urls: Record<string, string> = {};
for (const adapter of adapters) {
  await adapter.start();
  urls[adapter.type] = await adapter.app.listen({ port: 0, host: '127.0.0.1' });
}
process.stdout.write(`${JSON.stringify(urls)}\n`);

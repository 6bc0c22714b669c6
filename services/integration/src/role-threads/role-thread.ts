/**
 * Entry of an adapter role's worker thread (`ADAPTER_THREADS=workers`): opens its own
 * database pool (the relational role, or any role on the SQL log) and broker connection,
 * builds and starts the role's adapter exactly as the main thread would
 * (`startRoleAdapter`), serves its admin API from this thread, and answers the main
 * thread's refresh and stop. A stop finishes the in-flight batch (the adapter's own
 * stop), closes the engines and lets the thread end with exit code 0; anything that ends
 * the thread otherwise is a crash to the main thread (role-thread-host.ts).
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { createLogger, createSqlDatabase } from '@platform/core';
import { startRoleAdapter } from '../adapter-roles.js';
import { createBroker, type Broker } from '../broker/broker.js';
import { SERVICE } from '../config.js';
import { unavailableAtStartup } from '../startup-dependencies.js';
import type { FromRoleThread, RoleThreadData, ToRoleThread } from './role-thread-protocol.js';

/** Connections of one thread's pool: a role's batches run one at a time per partition. */
const THREAD_POOL_SIZE = 4;

const port = parentPort!;
const { role, env, engines, controlPlaneUrl, logLevel } = workerData as RoleThreadData;
const send = (message: FromRoleThread) => port.postMessage(message);
const logger = createLogger({ service: SERVICE, level: logLevel }).child({ role, threadId });

const needsDb = role === 'relational' || !engines.natsUrl;
const closers: Array<() => Promise<unknown>> = [];
const closeAll = async () => {
  for (const close of closers.splice(0).reverse())
    await close().catch((error) => logger.error({ err: error }, 'closing'));
};

try {
  if (needsDb && !engines.databaseUrl)
    throw new Error(`the ${role} role's thread needs PostgreSQL (DATABASE_URL)`);
  const db = needsDb
    ? await createSqlDatabase({
        url: engines.databaseUrl,
        dataDir: 'unused',
        poolSize: THREAD_POOL_SIZE,
        logger,
      })
    : undefined;
  if (db) closers.push(() => db.close());
  const broker: Broker = await createBroker({
    natsUrl: engines.natsUrl,
    natsMonitorUrl: env.NATS_MONITOR_URL,
    natsPrefix: engines.natsPrefix,
    lingerMs: engines.lingerMs,
    db,
    logger,
    sqlLogMaxMessageBytes: env.SQL_LOG_MAX_MESSAGE_BYTES,
    retention: env.BROKER_RETENTION,
    retentionIntervalMs: env.BROKER_RETENTION_INTERVAL_MS,
  });
  closers.push(() => broker.close());
  const { adapter, url } = await startRoleAdapter(role, {
    env,
    logger,
    broker,
    db,
    controlPlaneUrl,
  });
  closers.push(() => adapter.stop());
  port.on('message', (message: ToRoleThread) => {
    if (message.type === 'refresh') {
      adapter.runtime.refresh().then(
        () => send({ type: 'refreshed', id: message.id }),
        (error: Error) => send({ type: 'refreshed', id: message.id, error: error.message }),
      );
    } else if (message.type === 'stop') {
      void closeAll().then(() => {
        send({ type: 'stopped' });
        // Nothing else holds the thread open once the port closes: it ends with code 0.
        port.close();
      });
    }
  });
  send({ type: 'ready', url, consumerGroup: adapter.consumerGroup, adapterType: adapter.type });
} catch (error) {
  await closeAll();
  send({
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
    unavailable: unavailableAtStartup(error),
  });
  port.close();
}

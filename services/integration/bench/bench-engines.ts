/**
 * The engines a bench runs the platform on, set up and taken down one way for every bench:
 * a throw-away data folder; PostgreSQL (a database of this run's own) when NATS and
 * PostgreSQL both answer, else PGlite in that folder; a JetStream broker with this run's
 * own stream prefix when `natsUrl` is given (else the platform's SQL log).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLogger,
  createSqlDatabase,
  loadConfig,
  type Logger,
  type SqlDatabase,
} from '@platform/core';
import { createTestDatabase, postgresUrlForTests, type TestDatabase } from '@platform/testing';
import { createJetStreamBroker } from '../src/broker/jetstream/jetstream-broker.js';
import type { Broker } from '../src/broker/broker.js';
import { integrationEnvSchema, type IntegrationEnv } from '../src/config.js';
import type { ThreadEngines } from '../src/role-threads/role-thread-protocol.js';
import { deleteStreams } from '../test/helpers/broker-drivers.js';

export interface BenchEngines {
  dataDir: string;
  db: SqlDatabase;
  logger: Logger;
  /** JetStream, when `natsUrl` was given; the platform uses its SQL log otherwise. */
  broker: Broker | undefined;
  /** PGlite runs on a thread of its own (`PGLITE_THREAD` from the bench's environment). */
  pgliteThread: boolean;
  /** How adapter threads open these same engines (`startPlatform`'s `threadEngines`). */
  threadEngines: ThreadEngines;
  /** The platform's config on these engines (HOST, DATA_DIR, NATS_URL) with `extra` settings. */
  config(extra?: Record<string, string>): IntegrationEnv;
  /** Closes the broker and the database and removes the streams, the database and the folder. */
  close(): Promise<void>;
}

export interface BenchEngineOptions {
  /** Names the data folder, the database, the logger's service and the stream prefix. */
  name: string;
  natsUrl: string | undefined;
  /** JetStream workers' linger; unset: the driver's default. */
  lingerMs?: number;
}

export async function openBenchEngines(options: BenchEngineOptions): Promise<BenchEngines> {
  const { name, natsUrl } = options;
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`));
  let testDb: TestDatabase | undefined;
  if (natsUrl && (await postgresUrlForTests()))
    testDb = await createTestDatabase(name.replace(/-/g, '_'));
  // Read as the platform reads it (its env: on unless set off), so `PGLITE_THREAD=no` means
  // the same here.
  const { PGLITE_THREAD: pgliteThread } = loadConfig(
    integrationEnvSchema.pick({ PGLITE_THREAD: true }),
    process.env,
  );
  const db = await createSqlDatabase({
    url: testDb?.url,
    dataDir: testDb ? 'unused' : join(dataDir, 'pglite'),
    thread: pgliteThread,
  });
  const logger = createLogger({ service: name, level: 'warn' });
  // Streams of this run's own, as the tests have: with a shared prefix, benches on the same
  // nats-server (other worktrees, a profile beside an A/B run) shared the streams and each
  // adapter group's durable, and each process's workers took the other's deliveries for
  // lost ones (10,686 re-read warnings in one run at load 33 on 27 Nov 2026).
  const prefix = `BENCH${randomBytes(4).toString('hex').toUpperCase()}`;
  let broker: Broker | undefined;
  const close = async () => {
    await broker?.close().catch(() => undefined);
    if (natsUrl) await deleteStreams(natsUrl, prefix).catch(() => undefined);
    await db.close().catch(() => undefined);
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    if (natsUrl)
      broker = await createJetStreamBroker({
        url: natsUrl,
        logger,
        prefix,
        ...(options.lingerMs === undefined ? {} : { lingerMs: options.lingerMs }),
      });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    dataDir,
    db,
    logger,
    broker,
    pgliteThread: !testDb && pgliteThread,
    threadEngines: {
      databaseUrl: testDb?.url,
      natsUrl,
      natsPrefix: prefix,
      lingerMs: options.lingerMs,
    },
    config: (extra = {}) =>
      loadConfig(integrationEnvSchema, {
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ...(natsUrl ? { NATS_URL: natsUrl } : {}),
        ...extra,
      }),
    close,
  };
}

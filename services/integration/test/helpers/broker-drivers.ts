/**
 * The broker drivers every conformance and adapter test loops over: the SQL log on
 * PGlite and on PostgreSQL, and JetStream. `BROKER_DRIVERS=sql-log-pglite,jetstream`
 * narrows the list. Each `open()` gives an isolated broker (fresh database, or a unique
 * stream prefix) and a `cleanup()` that removes what it made.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createSqlDatabase, type Logger, type SqlDatabase } from '@platform/core';
import { createTestDatabase, natsUrlForTests, postgresUrlForTests } from '@platform/testing';
import { connect, type NatsConnection } from 'nats';
import { durableName, streamName } from '../../src/broker/jetstream/naming.js';
import type { Broker } from '../../src/broker/broker.js';
import {
  createJetStreamBroker,
  type JetStreamBrokerOptions,
} from '../../src/broker/jetstream/jetstream-broker.js';
import { createSqlLogBroker } from '../../src/broker/sql-log/sql-log-broker.js';
import type { ThreadEngines } from '../../src/role-threads/role-thread-protocol.js';

export interface OpenBroker {
  broker: Broker;
  /** The SQL database backing the broker (the SQL-log drivers) or a fresh PGlite for others. */
  db: SqlDatabase;
  /** How an adapter thread opens this broker (and its database, on PostgreSQL) itself. */
  threadEngines?: ThreadEngines;
  cleanup(): Promise<void>;
}

export interface BrokerDriverCase {
  name: string;
  /** Undefined when runnable, else the engine that is missing. */
  missing(): Promise<string | undefined>;
  /** `jetstream`: options of the JetStream driver (the SQL-log drivers take none). */
  open(logger?: Logger, jetstream?: Partial<JetStreamBrokerOptions>): Promise<OpenBroker>;
}

export const silentLogger = (): Logger =>
  createLogger({ service: 'integration-test', level: 'silent' });

export const BROKER_DRIVERS: BrokerDriverCase[] = [
  {
    name: 'sql-log-pglite',
    missing: async () => undefined,
    async open(logger = silentLogger()) {
      const db = await createSqlDatabase({ dataDir: 'memory://' });
      const broker = await createSqlLogBroker({
        db,
        logger,
        pollIntervalMs: 100,
        redeliveryDelayMs: 50,
      });
      return { broker, db, cleanup: async () => (await broker.close(), await db.close()) };
    },
  },
  {
    name: 'sql-log-postgres',
    missing: async () =>
      (await postgresUrlForTests()) ? undefined : 'PostgreSQL on 127.0.0.1:5432',
    async open(logger = silentLogger()) {
      const testDb = await createTestDatabase('broker');
      const db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused', poolSize: 6 });
      const broker = await createSqlLogBroker({
        db,
        logger,
        pollIntervalMs: 100,
        redeliveryDelayMs: 50,
      });
      return {
        broker,
        db,
        threadEngines: { databaseUrl: testDb.url },
        cleanup: async () => {
          await broker.close();
          await db.close().catch(() => undefined);
          await testDb.drop();
        },
      };
    },
  },
  {
    name: 'jetstream',
    missing: async () =>
      (await natsUrlForTests()) ? undefined : 'NATS JetStream on 127.0.0.1:4222',
    async open(logger = silentLogger(), jetstream = {}) {
      const url = (await natsUrlForTests())!;
      const prefix = `T${randomBytes(5).toString('hex').toUpperCase()}`;
      const broker = await createJetStreamBroker({
        url,
        logger,
        prefix,
        redeliveryDelayMs: 50,
        ...jetstream,
      });
      const db = await createSqlDatabase({ dataDir: 'memory://' });
      return {
        broker,
        db,
        threadEngines: { natsUrl: url, natsPrefix: prefix },
        cleanup: async () => {
          await broker.close();
          await db.close();
          await deleteStreams(url, prefix);
        },
      };
    },
  },
];

/** Deletes every stream of a broker prefix (a test's or a bench run's own). */
export async function deleteStreams(url: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: url, timeout: 2000 });
  try {
    const jsm = await nc.jetstreamManager();
    const names: string[] = [];
    for await (const info of jsm.streams.list())
      if (info.config.name.startsWith(`${prefix}_`)) names.push(info.config.name);
    for (const name of names) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}

/**
 * The SQL log on a PGlite folder on a thread of its own (`PGLITE_THREAD`). Not one of
 * `BROKER_DRIVERS`: the driver is the same SQL log, and core's conformance suite covers
 * the database on a thread; the tests that name it run the platform on it.
 */
export const SQL_LOG_PGLITE_THREAD: BrokerDriverCase = {
  name: 'sql-log-pglite-thread',
  missing: async () => undefined,
  async open(logger = silentLogger()) {
    const dir = await mkdtemp(join(tmpdir(), 'integration-pglite-thread-'));
    const db = await createSqlDatabase({ dataDir: join(dir, 'pglite'), thread: true });
    const broker = await createSqlLogBroker({
      db,
      logger,
      pollIntervalMs: 100,
      redeliveryDelayMs: 50,
    });
    const cleanup = async () => {
      await broker.close();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    };
    return { broker, db, cleanup };
  },
};

const wantedDrivers = () => process.env.BROKER_DRIVERS?.split(',').map((name) => name.trim());

export function selectedDrivers(): BrokerDriverCase[] {
  const wanted = wantedDrivers();
  return wanted ? BROKER_DRIVERS.filter((driver) => wanted.includes(driver.name)) : BROKER_DRIVERS;
}

/**
 * The drivers among `names` that `BROKER_DRIVERS` selects, each with the engine missing to
 * run it (undefined when runnable); `needsPostgres` adds PostgreSQL for a platform test
 * whose own tables live there.
 */
export async function driversToRun(
  names: string[],
  needsPostgres: (name: string) => boolean,
): Promise<Array<{ driver: BrokerDriverCase; missing: string | undefined }>> {
  const runs = [];
  const threaded = wantedDrivers()?.includes(SQL_LOG_PGLITE_THREAD.name) ?? true;
  const candidates = [...selectedDrivers(), ...(threaded ? [SQL_LOG_PGLITE_THREAD] : [])];
  for (const driver of candidates.filter((d) => names.includes(d.name))) {
    const missing =
      (await driver.missing()) ??
      (needsPostgres(driver.name) && !(await postgresUrlForTests())
        ? 'PostgreSQL on 127.0.0.1:5432'
        : undefined);
    runs.push({ driver, missing });
  }
  return runs;
}

/** The workspace's one polling wait (packages/testing), here for the tests that import it from this helper. */
export { waitFor } from '@platform/testing';

export const uniqueName = (base: string) => `${base}-${randomBytes(4).toString('hex')}`;

/**
 * A JetStream broker under a prefix of its own beside a second connection, to watch or
 * pull the group's durables from outside, and one-partition topics named with their
 * stream and a fresh group's durable. `close` removes the streams.
 */
export interface JetStreamBeside {
  open: OpenBroker;
  nc: NatsConnection;
  /** The broker's stream prefix (`streamName`). */
  prefix: string;
  topic(base: string): Promise<{ topic: string; groupId: string; stream: string; durable: string }>;
  close(): Promise<void>;
}

export async function openJetStreamBeside(
  logger?: Logger,
  options: Partial<JetStreamBrokerOptions> = {},
): Promise<JetStreamBeside> {
  const prefix = `T${randomBytes(5).toString('hex').toUpperCase()}`;
  const url = (await natsUrlForTests())!;
  const jetstream = BROKER_DRIVERS.find((d) => d.name === 'jetstream')!;
  const open = await jetstream.open(logger, { ...options, prefix });
  const nc = await connect({ servers: url });
  return {
    open,
    nc,
    prefix,
    async topic(base) {
      const topic = uniqueName(base);
      const groupId = uniqueName('g');
      await open.broker.ensureTopic({ name: topic, partitions: 1 });
      return {
        topic,
        groupId,
        stream: streamName(prefix, topic, 0),
        durable: durableName(groupId),
      };
    },
    async close() {
      await open.cleanup();
      await deleteStreams(url, prefix);
      await nc.close();
    },
  };
}

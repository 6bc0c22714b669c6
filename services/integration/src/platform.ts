/**
 * Wires the parts of the integration platform that this process runs
 * (`INTEGRATION_ROLES`): the control plane (8083) with the dead-letter consumer and the
 * interns seed, the submission service (8080), and the relational (8081), csv (8082) and
 * webhook (8084) adapters. `npm start` runs them all in one process on the embedded
 * defaults; in production each role runs alone with the same code.
 */
import { threadId } from 'node:worker_threads';
import {
  accessPolicyFromEnv,
  ConfigError,
  listen,
  listenHost,
  openSqlDatabase,
  allowedOutbound,
  type Logger,
  type SqlDatabase,
} from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { ADAPTER_ROLES, startRoleAdapter, type AdapterRole } from './adapter-roles.js';
import { createBroker, type Broker, type Consumer } from './broker/broker.js';
import { SERVICE, type IntegrationEnv, type Role } from './config.js';
import { listContracts } from './contracts/contract-store.js';
import {
  contractTopics,
  DEAD_LETTER_TOPIC,
  LEGACY_DEAD_LETTER_TOPIC,
  LEGACY_INTERN_TOPIC,
} from './contracts/topics.js';
import { buildControlPlaneApp } from './control-plane/app.js';
import { seedInternsContract } from './control-plane/seed-interns.js';
import { startDeadLetterConsumer } from './dead-letters/dead-letter-consumer.js';
import { migrateIntegration } from './migrations.js';
import { buildSubmissionApp } from './submission/app.js';
import { platformApiKey } from './platform-key.js';
import { startRoleThread } from './role-threads/role-thread-host.js';
import type { ThreadEngines } from './role-threads/role-thread-protocol.js';

export { SERVICE };

/** An adapter role this process runs, on the main thread or in a worker thread of its own. */
export interface PlatformAdapter {
  readonly role: AdapterRole;
  readonly type: string;
  readonly consumerGroup: string;
  /** Its admin API. */
  readonly url: string;
  /** The thread running it: 0 for the main thread (`node:worker_threads`' `threadId`). */
  readonly threadId: number;
  /** Re-registers the type and reloads attachments now. */
  refresh(): Promise<void>;
  /** Stops consuming (the batch in flight finishes) and closes the role's target. */
  stop(): Promise<void>;
}

export interface RunningPlatform {
  db: SqlDatabase;
  broker: Broker;
  /** Base URL of each running part. */
  urls: Partial<Record<Role, string>>;
  adapters: PlatformAdapter[];
  /** Stops HTTP apps, consumers, the broker and the database, in that order. */
  close(): Promise<void>;
}

export interface PlatformOptions {
  env: IntegrationEnv;
  logger: Logger;
  /** An already open database (tests); else opened from the env under DATA_DIR/integration. */
  db?: SqlDatabase;
  /** An already open broker (tests: an isolated JetStream prefix); else created from the env. */
  broker?: Broker;
  /**
   * How adapter threads open the engines passed as `db` and `broker` (their URLs, the
   * JetStream prefix); `ADAPTER_THREADS=workers` with injected engines needs it.
   */
  threadEngines?: ThreadEngines;
  /**
   * An adapter thread ended without being asked to. @defaultValue logs it and exits the
   * process with code 1 (the README's "Adapter threads": `main.ts` closes the rest first)
   */
  onThreadCrash?: (role: AdapterRole, error: Error) => void;
  /**
   * The adapter threads' module. @defaultValue its TypeScript source, which each thread
   * loads through tsx; tests pass a bundle of it (packages/testing `bundleEntry`), which
   * a thread starts without transforming the service's modules
   */
  threadEntry?: URL;
}

/**
 * How the adapter threads open the engines (`ADAPTER_THREADS=workers`), or undefined for
 * the main thread; a `workers` setting that cannot be honoured is a configuration error.
 */
function adapterThreadEngines(
  env: IntegrationEnv,
  db: SqlDatabase,
  options: Pick<PlatformOptions, 'db' | 'broker' | 'threadEngines'>,
): ThreadEngines | undefined {
  if (env.ADAPTER_THREADS === 'main') return undefined;
  const injected = options.db !== undefined || options.broker !== undefined;
  const engines =
    options.threadEngines ??
    (injected ? undefined : { databaseUrl: env.DATABASE_URL, natsUrl: env.NATS_URL });
  if (engines?.databaseUrl === undefined || db.engine !== 'postgres')
    throw new ConfigError(
      'ADAPTER_THREADS',
      'workers needs PostgreSQL (DATABASE_URL): PGlite is one session, which the adapter threads cannot open again',
    );
  return engines;
}

export async function startPlatform({
  env,
  logger,
  ...options
}: PlatformOptions): Promise<RunningPlatform> {
  const roles = new Set<Role>(env.INTEGRATION_ROLES as Role[]);
  const access = accessPolicyFromEnv(env);
  const apiKey = platformApiKey(access, env.PLATFORM_API_KEY);
  const brokerFor = (db?: SqlDatabase) =>
    createBroker({
      natsUrl: env.NATS_URL,
      natsMonitorUrl: env.NATS_MONITOR_URL,
      db,
      logger,
      sqlLogMaxMessageBytes: env.SQL_LOG_MAX_MESSAGE_BYTES,
      retention: env.BROKER_RETENTION,
      retentionIntervalMs: env.BROKER_RETENTION_INTERVAL_MS,
    });
  // JetStream needs no database, so it is connected first: a start that waits for the
  // broker (main.ts tries the whole start again) then does not open and close the
  // database at every attempt (a PGlite open is seconds of CPU).
  let broker: Broker | undefined = options.broker ?? (env.NATS_URL ? await brokerFor() : undefined);
  let db: SqlDatabase;
  try {
    db = options.db ?? (await openSqlDatabase(env, SERVICE, logger));
  } catch (error) {
    if (!options.broker)
      await broker
        ?.close()
        .catch((closeError) => logger.error({ err: closeError }, 'closing the broker'));
    throw error;
  }
  const closers: Array<() => Promise<unknown>> = [];
  const apps: FastifyInstance[] = [];
  const urls: Partial<Record<Role, string>> = {};
  const adapters: PlatformAdapter[] = [];
  const close = async () => {
    // Adapters first (they call the control plane), then the HTTP apps, then consumers.
    // Together: each finishes its own batch in flight, within one shutdown's time limit.
    await Promise.all(
      adapters
        .splice(0)
        .map((adapter) =>
          adapter.stop().catch((error) => logger.error({ err: error }, 'stopping an adapter')),
        ),
    );
    for (const app of apps.splice(0))
      await app.close().catch((error) => logger.error({ err: error }, 'closing an app'));
    for (const closer of closers.splice(0).reverse())
      await closer().catch((error) => logger.error({ err: error }, 'closing'));
    if (!options.broker)
      await broker?.close().catch((error) => logger.error({ err: error }, 'closing the broker'));
    if (!options.db) await db.close();
  };
  try {
    await migrateIntegration(db);
    broker ??= await brokerFor(db);
    const host = listenHost(env);
    const serve = async (role: Role, app: FastifyInstance, port: number) => {
      apps.push(app);
      urls[role] = await listen(app, { port, host });
      logger.info({ role, url: urls[role] }, 'listening');
    };

    if (roles.has('submission')) {
      // Topics are created by the submission service on startup (spec 2.7).
      for (const topic of [LEGACY_INTERN_TOPIC, LEGACY_DEAD_LETTER_TOPIC, DEAD_LETTER_TOPIC])
        await broker.ensureTopic(topic);
    }
    if (roles.has('control-plane')) {
      await seedInternsContract(db, broker, logger);
      const deadLetters: Consumer = await startDeadLetterConsumer({
        db,
        broker,
        logger: logger.child({ part: 'dead-letters' }),
      });
      closers.push(() => deadLetters.stop());
      const app = await buildControlPlaneApp({
        db,
        broker,
        logger: logger.child({ part: 'control-plane' }),
        access,
        platformApiKey: apiKey,
        allowedOutbound: allowedOutbound(env),
        livenessSeconds: env.ADAPTER_LIVENESS_SECONDS,
        seedInternsAttachments: env.SEED_INTERNS,
        submissionUrl: () =>
          env.SUBMISSION_URL ?? urls.submission ?? `http://127.0.0.1:${env.PORT}`,
      });
      await serve('control-plane', app, env.CONTROL_PLANE_PORT);
    }
    if (roles.has('submission')) {
      for (const { contract } of await listContracts(db))
        for (const topic of contractTopics(contract)) await broker.ensureTopic(topic);
      const app = await buildSubmissionApp({
        db,
        broker,
        logger: logger.child({ part: 'submission' }),
        corsOrigins: env.CORS_ORIGINS,
        fieldMaxLength: env.FIELD_MAX_LENGTH,
        access,
      });
      await serve('submission', app, env.PORT);
    }

    const controlPlaneUrl =
      env.CONTROL_PLANE_URL ??
      urls['control-plane'] ??
      `http://127.0.0.1:${env.CONTROL_PLANE_PORT}`;
    const adapterRoles = ADAPTER_ROLES.filter((role) => roles.has(role));
    const threadEngines = adapterRoles.length ? adapterThreadEngines(env, db, options) : undefined;
    if (threadEngines) {
      const onCrash =
        options.onThreadCrash ??
        ((role: AdapterRole, error: Error) => {
          logger.fatal({ err: error, role }, 'an adapter thread crashed: exiting');
          process.exit(1);
        });
      // Started together: each thread loads the code and opens its engines on its own.
      const started = await Promise.allSettled(
        adapterRoles.map((role) =>
          startRoleThread(
            { role, env, engines: threadEngines, controlPlaneUrl, logLevel: logger.level },
            onCrash,
            options.threadEntry,
          ),
        ),
      );
      for (const outcome of started) {
        if (outcome.status !== 'fulfilled') continue;
        const thread = outcome.value;
        adapters.push(thread);
        urls[thread.role] = thread.url;
        logger.info(
          {
            role: thread.role,
            url: thread.url,
            consumerGroup: thread.consumerGroup,
            threadId: thread.threadId,
          },
          'adapter started in a worker thread',
        );
      }
      const failed = started.find((outcome) => outcome.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    } else {
      for (const role of adapterRoles) {
        const { adapter, url } = await startRoleAdapter(role, {
          env,
          logger,
          broker,
          db,
          controlPlaneUrl,
        });
        adapters.push({
          role,
          type: adapter.type,
          consumerGroup: adapter.consumerGroup,
          url,
          threadId,
          refresh: () => adapter.runtime.refresh(),
          stop: () => adapter.stop(),
        });
        urls[role] = url;
        logger.info({ role, url, consumerGroup: adapter.consumerGroup }, 'adapter started');
      }
    }
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { db, broker, urls, adapters, close };
}

/**
 * Wires the parts of the integration platform that this process runs
 * (`INTEGRATION_ROLES`): the control plane (8083) with the dead-letter consumer and the
 * interns seed, the submission service (8080), and the relational (8081), csv (8082) and
 * webhook (8084) adapters. `npm start` runs them all in one process on the embedded
 * defaults; in production each role runs alone with the same code.
 */
import { join } from 'node:path';
import {
  accessPolicyFromEnv,
  allowedOutbound,
  listen,
  listenHost,
  openSqlDatabase,
  serviceDataDir,
  type Logger,
  type SqlDatabase,
} from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Adapter } from './adapters/runtime/build-adapter.js';
import { createControlPlaneClient } from './adapters/runtime/control-plane-client.js';
import { buildCsvAdapter } from './adapters/csv/build-csv-adapter.js';
import { buildRelationalAdapter } from './adapters/relational/build-relational-adapter.js';
import { buildWebhookAdapter } from './adapters/webhook/build-webhook-adapter.js';
import { createBroker, type Broker, type Consumer } from './broker/broker.js';
import type { IntegrationEnv, Role } from './config.js';
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
import { concretePort } from './free-port.js';
import { platformApiKey } from './platform-key.js';

export const SERVICE = 'integration';

export interface RunningPlatform {
  db: SqlDatabase;
  broker: Broker;
  /** Base URL of each running part. */
  urls: Partial<Record<Role, string>>;
  adapters: Adapter[];
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
}

export async function startPlatform({
  env,
  logger,
  ...options
}: PlatformOptions): Promise<RunningPlatform> {
  const roles = new Set<Role>(env.INTEGRATION_ROLES as Role[]);
  const access = accessPolicyFromEnv(env);
  const apiKey = platformApiKey(access, env.PLATFORM_API_KEY);
  const db = options.db ?? (await openSqlDatabase(env, SERVICE, logger));
  const closers: Array<() => Promise<unknown>> = [];
  const apps: FastifyInstance[] = [];
  const urls: Partial<Record<Role, string>> = {};
  const adapters: Adapter[] = [];
  let broker: Broker | undefined;
  const close = async () => {
    // Adapters first (they call the control plane), then the HTTP apps, then consumers.
    for (const adapter of adapters.splice(0).reverse())
      await adapter.stop().catch((error) => logger.error({ err: error }, 'stopping an adapter'));
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
    broker =
      options.broker ??
      (await createBroker({
        natsUrl: env.NATS_URL,
        natsMonitorUrl: env.NATS_MONITOR_URL,
        db,
        logger,
        sqlLogMaxMessageBytes: env.SQL_LOG_MAX_MESSAGE_BYTES,
        retention: env.BROKER_RETENTION,
        retentionIntervalMs: env.BROKER_RETENTION_INTERVAL_MS,
      }));
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
    const localHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    const adapterDeps = (prefix: 'RELATIONAL' | 'CSV' | 'WEBHOOK', port: number) => ({
      broker: broker!,
      adminUrl: `http://${localHost}:${port}`,
      logger,
      attachments: createControlPlaneClient({ baseUrl: controlPlaneUrl, apiKey }),
      access,
      refreshIntervalMs: env.ATTACHMENT_REFRESH_MS,
      retry: {
        maxAttempts: env[`${prefix}_RETRY_ATTEMPTS`],
        initialBackoffMs: env[`${prefix}_RETRY_BACKOFF_MS`],
        outageBudgetMs: env[`${prefix}_OUTAGE_BUDGET_MS`],
      },
    });
    const dataDir = serviceDataDir(env, SERVICE);
    const plans: Array<[Role, number, (port: number) => Promise<Adapter>]> = [
      [
        'relational',
        env.RELATIONAL_ADAPTER_PORT,
        (port) =>
          buildRelationalAdapter({
            ...adapterDeps('RELATIONAL', port),
            db,
            allowedTables: env.RELATIONAL_ALLOWED_TABLES,
          }),
      ],
      [
        'csv',
        env.CSV_ADAPTER_PORT,
        (port) =>
          buildCsvAdapter({
            ...adapterDeps('CSV', port),
            baseDir: join(dataDir, 'csv'),
            compactEntries: env.CSV_JOURNAL_COMPACT_ENTRIES,
            recordIdsKeep: env.CSV_RECORD_IDS_KEEP,
          }),
      ],
      [
        'webhook',
        env.WEBHOOK_ADAPTER_PORT,
        (port) =>
          buildWebhookAdapter({
            ...adapterDeps('WEBHOOK', port),
            stateDir: join(dataDir, 'webhook'),
            allowedOutbound: allowedOutbound(env),
            deliveredKeep: env.WEBHOOK_DELIVERED_KEEP,
          }),
      ],
    ];
    for (const [role, configuredPort, build] of plans) {
      if (!roles.has(role)) continue;
      const port = await concretePort(configuredPort, host);
      const adapter = await build(port);
      adapters.push(adapter);
      urls[role] = await listen(adapter.app, { port, host });
      await adapter.start();
      logger.info(
        { role, url: urls[role], consumerGroup: adapter.consumerGroup },
        'adapter started',
      );
    }
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { db, broker, urls, adapters, close };
}

/**
 * The submission service (port 8080): validates records against their contracts, wraps
 * them in envelopes and publishes them; keeps its own read model for listing. Built with
 * injected dependencies so tests drive it with `app.inject()`.
 */
import { randomUUID } from 'node:crypto';
import {
  createHttpApp,
  localServer,
  type AccessPolicy,
  type Logger,
  type SqlDatabase,
} from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Broker } from '../broker/broker.js';
import { createEnvelopeValidator } from '../contracts/envelope.js';
import { DEFAULT_FIELD_MAX_LENGTH } from '../contracts/payload.js';
import { ContractCache } from './contract-cache.js';
import { installInternsCors } from './cors.js';
import { registerInternRoutes } from './interns-routes.js';
import { KeyedMutex } from './keyed-mutex.js';
import { createSubmissionMetrics } from './metrics.js';
import { OutboxRelay, type OutboxSettings } from './outbox-relay.js';
import { createIntakeWriter } from './record-use-cases.js';
import { registerRecordRoutes } from './records-routes.js';
import { installTraceIds } from './trace.js';
import { installTextGuard } from '../text-guard.js';
import { classifyDependencyError } from '../dependency-errors.js';
import { DEFAULT_PORTS } from '../config.js';
import { platformHealthChecks } from '../health-checks.js';

export interface SubmissionOptions {
  db: SqlDatabase;
  broker: Broker;
  logger: Logger;
  metrics?: Registry;
  /** Browser origins allowed on `/interns` (`*` for any). @defaultValue none */
  corsOrigins?: readonly string[];
  /** Record id generator. @defaultValue `crypto.randomUUID` */
  newRecordId?: () => string;
  /** Clock for `occurredAt`. @defaultValue `() => new Date()` */
  now?: () => Date;
  /** Longest value of a contract field without its own maxLength (`FIELD_MAX_LENGTH`). @defaultValue 10000 */
  fieldMaxLength?: number;
  /** API keys and scopes (`accessPolicyFromEnv`). @defaultValue local mode */
  access?: AccessPolicy;
  /** Intake outbox relay and reconciler timings. @defaultValue DEFAULT_OUTBOX_SETTINGS */
  outbox?: Partial<OutboxSettings>;
}

export async function buildSubmissionApp(options: SubmissionOptions): Promise<FastifyInstance> {
  const { db, broker, logger } = options;
  const app = await createHttpApp({
    service: 'integration-submission',
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.access ? { access: options.access } : {}),
    health: platformHealthChecks(db, broker),
    classifyError: classifyDependencyError(db),
    openapi: {
      title: 'Integration platform: submission service',
      version: '1.0.0',
      description:
        'Submit records of runtime contracts; each is validated, wrapped in an envelope and published.',
      servers: [localServer(DEFAULT_PORTS.PORT, 'The submission service')],
      tags: [
        { name: 'records', description: 'Records of any registered contract.' },
        { name: 'interns (legacy)', description: 'The flat intern intake of the first releases.' },
      ],
    },
  });
  installTraceIds(app);
  installTextGuard(app);
  installInternsCors(app, options.corsOrigins ?? []);
  const contracts = new ContractCache(db, logger);
  await contracts.start();
  app.addHook('onClose', () => contracts.close());
  const owner = randomUUID();
  const relay = new OutboxRelay({
    db,
    broker,
    logger: logger.child({ part: 'outbox' }),
    contracts,
    owner,
    ...(options.outbox ? { settings: options.outbox } : {}),
  });
  relay.start();
  app.addHook('onClose', () => relay.close());
  app.decorate('outboxRelay', relay);
  const deps = {
    db,
    broker,
    logger,
    metrics: createSubmissionMetrics(app.metricsRegistry),
    newRecordId: options.newRecordId ?? randomUUID,
    now: options.now ?? (() => new Date()),
    mutex: new KeyedMutex(),
    contracts,
    intake: createIntakeWriter(db, owner, relay),
    payloadLimits: { defaultMaxLength: options.fieldMaxLength ?? DEFAULT_FIELD_MAX_LENGTH },
    envelopes: createEnvelopeValidator(),
  };
  registerRecordRoutes(app, deps);
  registerInternRoutes(app, deps);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The submission service's outbox relay (tests run passes with `runOnce`). */
    outboxRelay?: OutboxRelay;
  }
}

/**
 * The control plane (port 8083): contract registry with versioned, compatibility-checked
 * edits, adapter type registry, attachments and their feed for adapters, dead-letter read
 * API and replay, and the operator console (`/console`). Built with injected dependencies so tests drive it with `app.inject()`.
 */
import {
  createHttpApp,
  createOutboundGuard,
  LOCAL_OUTBOUND,
  localServer,
  type AccessPolicy,
  type Logger,
  type SqlDatabase,
  registerClientModule,
} from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Broker } from '../broker/broker.js';
import { registerAdapterTypeRoutes } from './adapter-types/adapter-types-routes.js';
import { registerAttachmentRoutes } from './attachments/attachments-routes.js';
import { registerConsoleRoutes } from './console/console-routes.js';
import { registerContractRoutes } from './contracts-routes.js';
import { registerDeadLetterRoutes } from './dead-letters-routes.js';
import { createConfigSchemas } from './config-schema.js';
import { seedInternsAttachment } from './seed-interns.js';
import { installTextGuard } from '../text-guard.js';
import { classifyDependencyError } from '../dependency-errors.js';
import { DEFAULT_PORTS } from '../config.js';
import { contractSchema } from './contract-schema.js';
import { platformHealthChecks } from '../health-checks.js';

export interface ControlPlaneOptions {
  db: SqlDatabase;
  broker: Broker;
  logger: Logger;
  metrics?: Registry;
  /** An adapter type is reported live when it re-registered within this many seconds. @defaultValue 90 */
  livenessSeconds?: number;
  /** Attach the interns contract to the relational and csv types when they first register. @defaultValue true */
  seedInternsAttachments?: boolean;
  /** Submission service the console reads records from. @defaultValue `() => 'http://127.0.0.1:8080'` */
  submissionUrl?: () => string; /** API keys and scopes (`accessPolicyFromEnv`). @defaultValue local mode */
  access?: AccessPolicy;
  /** The key the console presents to the submission service and adapters (`platformApiKey`). */
  platformApiKey?: string | undefined;
  /** Adapter admin URLs allowed although loopback/private (`allowedOutbound(env)`). @defaultValue loopback */
  allowedOutbound?: readonly string[];
  /**
   * How often a waiting feed request re-reads the feed with no change notified (a lost
   * NOTIFY's bound). @defaultValue 5000 (`FEED_RECHECK_MS`)
   */
  attachmentFeedRecheckMs?: number;
}

export async function buildControlPlaneApp(options: ControlPlaneOptions): Promise<FastifyInstance> {
  const { db, broker, logger } = options;
  const app = await createHttpApp({
    service: 'integration-control-plane',
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.access ? { access: options.access } : {}),
    health: platformHealthChecks(db, broker),
    classifyError: classifyDependencyError(db),
    openapi: {
      title: 'Integration platform: control plane',
      version: '1.0.0',
      description:
        'Contracts (versioned, BACKWARD-compatible edits), adapter types, attachments, dead letters.',
      servers: [localServer(DEFAULT_PORTS.CONTROL_PLANE_PORT, 'The control plane')],
      tags: [
        {
          name: 'contracts',
          description: 'The contract registry: versioned, compatibility-checked.',
        },
        { name: 'adapter types', description: 'Adapter types as they register themselves.' },
        { name: 'attachments', description: 'Which contract each adapter type serves, and how.' },
        { name: 'dead letters', description: 'Records the adapters could not write; replay.' },
        { name: 'console', description: "The operator console's page and the calls it relays." },
      ],
    },
  });
  app.addSchema(contractSchema);
  installTextGuard(app);
  const configSchemas = createConfigSchemas();
  registerContractRoutes(app, { db, broker });
  registerAdapterTypeRoutes(app, {
    db,
    configSchemas,
    livenessSeconds: options.livenessSeconds ?? 90,
    ...(options.seedInternsAttachments === false
      ? {}
      : { onRegistered: (type) => seedInternsAttachment(db, logger, type, configSchemas) }),
  });
  registerAttachmentRoutes(app, {
    db,
    configSchemas,
    ...(options.attachmentFeedRecheckMs === undefined
      ? {}
      : { feedRecheckMs: options.attachmentFeedRecheckMs }),
  });
  registerDeadLetterRoutes(app, { db, broker });
  registerConsoleRoutes(app, {
    db,
    submissionUrl: options.submissionUrl ?? (() => 'http://127.0.0.1:8080'),
    apiKey: options.platformApiKey,
    outbound: createOutboundGuard({ allowed: options.allowedOutbound ?? LOCAL_OUTBOUND }),
  });
  // The console calls the API through it.
  registerClientModule(app, 'console');
  return app;
}

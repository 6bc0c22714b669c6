/**
 * The integration platform's five OpenAPI documents (control plane, submission service and
 * the admin API of each adapter type), generated from their route schemas on a throw-away
 * in-memory database: what `npm run openapi` writes and `npm run lint` checks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createSqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { buildCsvAdapter } from './adapters/csv/build-csv-adapter.js';
import { buildRelationalAdapter } from './adapters/relational/build-relational-adapter.js';
import { createControlPlaneClient } from './adapters/runtime/control-plane-client.js';
import { buildWebhookAdapter } from './adapters/webhook/build-webhook-adapter.js';
import { createBroker } from './broker/create-broker.js';
import { DEFAULT_PORTS } from './config.js';
import { buildControlPlaneApp } from './control-plane/app.js';
import { migrateIntegration } from './migrations.js';
import { buildSubmissionApp } from './submission/app.js';

export async function integrationOpenApiDocuments(): Promise<Record<string, unknown>> {
  const logger = createLogger({ service: 'integration-openapi', level: 'silent' });
  const env = DEFAULT_PORTS;
  const dir = await mkdtemp(join(tmpdir(), 'integration-openapi-'));
  const db = await createSqlDatabase({ dataDir: 'memory://' });
  const apps: FastifyInstance[] = [];
  try {
    await migrateIntegration(db);
    const broker = await createBroker({ db, logger });
    const adapterDeps = (port: number) => ({
      broker,
      logger,
      adminUrl: `http://127.0.0.1:${port}`,
      attachments: createControlPlaneClient({
        baseUrl: `http://127.0.0.1:${env.CONTROL_PLANE_PORT}`,
      }),
    });
    const built: Record<string, FastifyInstance> = {
      'integration-control-plane': await buildControlPlaneApp({
        db,
        broker,
        logger,
        seedInternsAttachments: false,
      }),
      'integration-submission': await buildSubmissionApp({ db, broker, logger }),
      'integration-relational-adapter': (
        await buildRelationalAdapter({ ...adapterDeps(env.RELATIONAL_ADAPTER_PORT), db })
      ).app,
      'integration-csv-adapter': (
        await buildCsvAdapter({ ...adapterDeps(env.CSV_ADAPTER_PORT), baseDir: join(dir, 'csv') })
      ).app,
      'integration-webhook-adapter': (
        await buildWebhookAdapter({
          ...adapterDeps(env.WEBHOOK_ADAPTER_PORT),
          stateDir: join(dir, 'webhook'),
        })
      ).app,
    };
    apps.push(...Object.values(built));
    const documents: Record<string, unknown> = {};
    for (const [name, app] of Object.entries(built)) {
      await app.ready();
      documents[name] = app.swagger();
    }
    await broker.close();
    return documents;
  } finally {
    for (const app of apps) await app.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

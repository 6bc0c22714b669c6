/**
 * The adapter roles (relational, csv, webhook) built and started from the platform's
 * configuration: one place for both ways a role runs, on the process's main thread
 * (`platform.ts`) or in a worker thread of its own (`role-threads/role-thread.ts`).
 */
import { join } from 'node:path';
import {
  accessPolicyFromEnv,
  allowedOutbound,
  listen,
  listenHost,
  serviceDataDir,
  type Logger,
  type SqlDatabase,
} from '@platform/core';
import type { Adapter } from './adapters/runtime/build-adapter.js';
import { createControlPlaneClient } from './adapters/runtime/control-plane-client.js';
import { buildCsvAdapter } from './adapters/csv/build-csv-adapter.js';
import { buildRelationalAdapter } from './adapters/relational/build-relational-adapter.js';
import { buildWebhookAdapter } from './adapters/webhook/build-webhook-adapter.js';
import type { Broker } from './broker/broker.js';
import { SERVICE, type IntegrationEnv, type Role } from './config.js';
import { onConcretePort } from './free-port.js';
import { platformApiKey } from './platform-key.js';

export const ADAPTER_ROLES = ['relational', 'csv', 'webhook'] as const;
export type AdapterRole = (typeof ADAPTER_ROLES)[number];

export const isAdapterRole = (role: Role): role is AdapterRole =>
  (ADAPTER_ROLES as readonly string[]).includes(role);

/** What a role's adapter is built from, wherever it runs. */
export interface AdapterRoleContext {
  env: IntegrationEnv;
  logger: Logger;
  broker: Broker;
  /** The relational adapter's database (the csv and webhook adapters use none). */
  db: SqlDatabase | undefined;
  /** Where adapters register and read attachments. */
  controlPlaneUrl: string;
}

const PORT_OF: Record<
  AdapterRole,
  'RELATIONAL_ADAPTER_PORT' | 'CSV_ADAPTER_PORT' | 'WEBHOOK_ADAPTER_PORT'
> = {
  relational: 'RELATIONAL_ADAPTER_PORT',
  csv: 'CSV_ADAPTER_PORT',
  webhook: 'WEBHOOK_ADAPTER_PORT',
};
const PREFIX_OF = { relational: 'RELATIONAL', csv: 'CSV', webhook: 'WEBHOOK' } as const;

async function buildRoleAdapter(
  role: AdapterRole,
  port: number,
  context: AdapterRoleContext,
): Promise<Adapter> {
  const { env } = context;
  const host = listenHost(env);
  const access = accessPolicyFromEnv(env);
  const localHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const prefix = PREFIX_OF[role];
  const deps = {
    broker: context.broker,
    adminUrl: `http://${localHost}:${port}`,
    logger: context.logger,
    attachments: createControlPlaneClient({
      baseUrl: context.controlPlaneUrl,
      apiKey: platformApiKey(access, env.PLATFORM_API_KEY),
    }),
    access,
    refreshIntervalMs: env.ATTACHMENT_REFRESH_MS,
    retry: {
      maxAttempts: env[`${prefix}_RETRY_ATTEMPTS`],
      initialBackoffMs: env[`${prefix}_RETRY_BACKOFF_MS`],
      outageBudgetMs: env[`${prefix}_OUTAGE_BUDGET_MS`],
    },
  };
  const dataDir = serviceDataDir(env, SERVICE);
  switch (role) {
    case 'relational':
      if (!context.db) throw new Error('the relational adapter needs a database');
      return buildRelationalAdapter({
        ...deps,
        db: context.db,
        allowedTables: env.RELATIONAL_ALLOWED_TABLES,
      });
    case 'csv':
      return buildCsvAdapter({
        ...deps,
        baseDir: join(dataDir, 'csv'),
        compactEntries: env.CSV_JOURNAL_COMPACT_ENTRIES,
        recordIdsKeep: env.CSV_RECORD_IDS_KEEP,
      });
    case 'webhook':
      return buildWebhookAdapter({
        ...deps,
        stateDir: join(dataDir, 'webhook'),
        allowedOutbound: allowedOutbound(env),
        deliveredKeep: env.WEBHOOK_DELIVERED_KEEP,
      });
  }
}

/** Builds the role's adapter, serves its admin API on the role's port and starts consuming. */
export async function startRoleAdapter(
  role: AdapterRole,
  context: AdapterRoleContext,
): Promise<{ adapter: Adapter; url: string }> {
  const host = listenHost(context.env);
  return onConcretePort(context.env[PORT_OF[role]], host, async (port) => {
    const adapter = await buildRoleAdapter(role, port, context);
    try {
      const url = await listen(adapter.app, { port, host });
      await adapter.start();
      return { adapter, url };
    } catch (error) {
      await adapter.stop().catch(() => undefined);
      throw error;
    }
  });
}

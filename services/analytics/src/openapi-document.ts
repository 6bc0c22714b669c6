/**
 * The analytics service's OpenAPI document, generated from its route schemas around a
 * warehouse that is never opened: what `npm run openapi` writes and `npm run lint` checks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@platform/core';
import { buildAnalyticsApp } from './app.js';
import { createWarehouse } from './warehouse/warehouse.js';

export async function analyticsOpenApiDocuments(): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'analytics-openapi-'));
  const warehouse = createWarehouse({ file: join(dir, 'raw_data.duckdb') });
  try {
    const app = await buildAnalyticsApp({
      warehouse,
      logger: createLogger({ service: 'analytics-openapi', level: 'silent' }),
    });
    await app.ready();
    const document = app.swagger();
    await app.close();
    return { analytics: document };
  } finally {
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
}

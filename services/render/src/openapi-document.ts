/**
 * The render service's OpenAPI document, generated from its route schemas on throw-away
 * embedded engines (no configuration, nothing kept): what `npm run openapi` writes and
 * `npm run lint` checks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createClientAddressResolver,
  createCounterStore,
  createLogger,
  createObjectStore,
  createSqlDatabase,
} from '@platform/core';
import { buildRenderApp } from './app.js';
import { DEFAULT_SETTINGS } from './config.js';
import { createRenderContext } from './context.js';

export async function renderOpenApiDocuments(): Promise<Record<string, unknown>> {
  const logger = createLogger({ service: 'render-openapi', level: 'silent' });
  const dir = await mkdtemp(join(tmpdir(), 'render-openapi-'));
  const db = await createSqlDatabase({ dataDir: 'memory://' });
  const store = createObjectStore({ fs: { root: dir, signingSecret: 'openapi-document-only' } });
  const counters = createCounterStore({});
  const ctx = createRenderContext({
    db,
    store,
    counters,
    settings: DEFAULT_SETTINGS,
    logger,
    clientAddress: createClientAddressResolver({}),
  });
  try {
    const app = await buildRenderApp(ctx, { logger });
    await app.ready();
    const document = app.swagger();
    await app.close();
    return { render: document };
  } finally {
    await ctx.close();
    await counters.close();
    await store.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Bad-input run over every analytics route (issue 15): `npm test` sends a short run,
 * `npm run fuzz` a long one (FUZZ_REQUESTS, FUZZ_TIME_MS). No 500s; heap growth bounded.
 */
import { after, before, test } from 'node:test';
import { assertFuzzClean, fuzzApp, fuzzSettings } from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { buildAnalyticsApp } from '../../src/app.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

const settings = fuzzSettings();

let fixture: WarehouseFixture;
let app: FastifyInstance;
before(async () => {
  fixture = await createWarehouseFixture();
  app = await buildAnalyticsApp({ warehouse: fixture.warehouse, logger: silentLogger() });
});
after(async () => {
  await app?.close();
  await fixture?.cleanup();
});

test(`fuzz: ${settings.requests} bad requests over every route, no 500, bounded heap`, async (t) => {
  const report = await fuzzApp(app, {
    ...settings,
    skip: ['GET /sse'],
    samples: {
      'POST /api/v1/agent/chat': { message: 'What are total sales?', history: [] },
      'POST /mcp': {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'run_sql', arguments: { sql: 'SELECT 1' } },
      },
    },
  });
  t.diagnostic(JSON.stringify(report));
  assertFuzzClean(report);
});

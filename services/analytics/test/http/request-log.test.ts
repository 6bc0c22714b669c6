import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '@platform/core';
import { buildAnalyticsApp } from '../../src/app.js';
import { createWarehouseFixture, type WarehouseFixture } from '../helpers/warehouse-fixture.js';

// The service logs one line per request at info, when it is answered (README, Benchmark:
// Fastify's two lines cost 10–30 % of a cached read's CPU).
describe('request log', () => {
  let fixture: WarehouseFixture;
  let dir: string;
  before(async () => {
    fixture = await createWarehouseFixture();
    dir = await mkdtemp(join(tmpdir(), 'analytics-request-log-'));
  });
  after(async () => {
    await fixture.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('is one "request completed" line per read, REST and MCP, with its URL and status', async () => {
    const file = join(dir, 'service.log');
    const app = await buildAnalyticsApp({
      warehouse: fixture.warehouse,
      logger: createLogger({ service: 'analytics', level: 'info', file }),
    });
    try {
      const rest = await app.inject({
        url: '/api/v1/sales/kpis',
        headers: { 'x-request-id': 'read-1' },
      });
      assert.equal(rest.statusCode, 200);
      const mcp = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-request-id': 'read-2',
        },
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'sales_summary', arguments: {} },
        },
      });
      assert.equal(mcp.statusCode, 200);
    } finally {
      await app.close();
    }
    const lines = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const [id, method, url] of [
      ['read-1', 'GET', '/api/v1/sales/kpis'],
      ['read-2', 'POST', '/mcp'],
    ] as const) {
      const about = lines.filter((line) => line.reqId === id);
      assert.deepEqual(
        about.map((line) => [line.msg, line.req, line.res]),
        [['request completed', { method, url }, { statusCode: 200 }]],
        JSON.stringify(about),
      );
    }
  });
});

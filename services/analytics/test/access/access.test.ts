/**
 * Analytics access table (issue 15): REST and MCP reads need `read` when keys are set,
 * the chat API and `run_sql` need `operate` unless AGENT_SCOPE / SQL_TOOL_SCOPE open
 * them; the chat page, /health and the docs stay open.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listen, type KeyScope } from '@platform/core';
import {
  bearer,
  checkKeyedAccess,
  checkLocalAccess,
  testAccessPolicy,
  type AccessTable,
} from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { buildAnalyticsApp, type AppOptions } from '../../src/app.js';
import { SQL_TOOL } from '../../src/mcp/mcp-server.js';
import { READ_NAMES, READS } from '../../src/sales/catalog.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

const ANALYTICS_ACCESS: AccessTable = {
  'GET /docs': 'open',
  'GET /openapi.json': 'open',
  'GET /health': 'open',
  'GET /metrics': 'operate',
  ...Object.fromEntries(READ_NAMES.map((name) => [`GET ${READS[name].path}`, 'read'])),
  'POST /mcp': 'read',
  'GET /mcp': 'read',
  'DELETE /mcp': 'read',
  'GET /sse': 'read',
  'POST /messages': 'read',
  'POST /api/v1/agent/chat': 'operate',
  'GET /': 'open',
  'GET /static/dashboard.js': 'open',
  'GET /static/charts.js': 'open',
  'GET /static/vendor/chart.umd.min.js': 'open',
  'GET /chat': 'open',
  'GET /favicon.ico': 'open',
  'GET /chat/app.js': 'open',
  'GET /assets/openapi-fetch.js': 'open',
};
// An SSE stream stays open: it is only checked to be refused.
const skipAuthorized = ['GET /sse'];

describe('analytics access', () => {
  let fixture: WarehouseFixture;
  const apps: FastifyInstance[] = [];
  const build = async (options: Partial<AppOptions> = {}) => {
    const app = await buildAnalyticsApp({
      warehouse: fixture.warehouse,
      logger: silentLogger(),
      ...options,
    });
    apps.push(app);
    await app.ready();
    return app;
  };

  before(async () => {
    fixture = await createWarehouseFixture();
  });
  after(async () => {
    for (const app of apps) await app.close();
    await fixture.cleanup();
  });

  test('with API keys: every route as in the table', async () => {
    const app = await build({ access: testAccessPolicy() });
    await checkKeyedAccess(app, ANALYTICS_ACCESS, { skipAuthorized });
    const kpis = await app.inject({ url: '/api/v1/sales/kpis', headers: bearer('read') });
    assert.equal(kpis.statusCode, 200);
  });

  test('without keys: the chat API and /metrics answer loopback peers only', async () => {
    await checkLocalAccess(await build(), ANALYTICS_ACCESS, { skipAuthorized });
  });

  test('AGENT_SCOPE open: the chat API needs no key', async () => {
    const app = await build({ access: testAccessPolicy(), agentScope: 'open' });
    const chat = await app.inject({
      method: 'POST',
      url: '/api/v1/agent/chat',
      payload: { message: 'What are the total sales?' },
    });
    assert.equal(chat.statusCode, 200, chat.body);
  });

  const sqlResult = async (base: string, scope: KeyScope | 'admin') => {
    const client = new Client({ name: 'access-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: bearer(scope) },
      }),
    );
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(listed.includes(SQL_TOOL), 'run_sql stays listed for every caller');
      const result = await client.callTool({
        name: SQL_TOOL,
        arguments: { sql: 'SELECT 1 AS one' },
      });
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      return { isError: result.isError === true, text };
    } finally {
      await client.close();
    }
  };

  test('run_sql needs operate: a read key gets a tool error naming the scope, a key with read and operate rows', async () => {
    const app = await build({ access: testAccessPolicy() });
    const base = await listen(app, { port: 0, host: '127.0.0.1' });
    const reader = await sqlResult(base, 'read');
    assert.equal(reader.isError, true);
    assert.match(reader.text, /run_sql needs the "operate" scope/);
    const operator = await sqlResult(base, 'admin');
    assert.equal(operator.isError, false, operator.text);
    assert.deepEqual(JSON.parse(operator.text).rows, [{ one: 1 }]);
  });

  test('SQL_TOOL_SCOPE read: a read key runs SQL', async () => {
    const app = await build({ access: testAccessPolicy(), sqlScope: 'read' });
    const base = await listen(app, { port: 0, host: '127.0.0.1' });
    const reader = await sqlResult(base, 'read');
    assert.equal(reader.isError, false, reader.text);
  });
});

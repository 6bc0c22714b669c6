/**
 * `POST /mcp` answered by the process's one MCP server (`stateless-exchange.ts`): the
 * stateless transport's HTTP rules, batches, and requests of different clients with the
 * same JSON-RPC id answered each with its own result, each caller with its own SQL rights.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, testAccessPolicy } from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { buildAnalyticsApp } from '../../src/app.js';
import { SQL_TOOL } from '../../src/mcp/mcp-server.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

const ACCEPT = 'application/json, text/event-stream';

describe('stateless /mcp on one server', () => {
  let fixture: WarehouseFixture;
  let app: FastifyInstance;

  before(async () => {
    fixture = await createWarehouseFixture();
    app = await buildAnalyticsApp({ warehouse: fixture.warehouse, logger: silentLogger() });
  });
  after(async () => {
    await app.close();
    await fixture.cleanup();
  });

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      payload: JSON.stringify(body),
    });
    return { status: response.statusCode, body: response.body ? response.json() : undefined };
  };
  const call = (id: number | string, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  type Answer = { id: unknown; result: { structuredContent: { data: unknown[] } } };

  it('requests of many clients with the same id each get their own answer, under their id', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((limit) => post(call(7, 'top_customers', { limit }))),
    );
    answers.forEach(({ status, body }, i) => {
      assert.equal(status, 200);
      assert.equal((body as Answer).id, 7);
      const rows = (body as Answer).result.structuredContent.data;
      assert.equal(rows.length, Math.min(i + 1, 7), `limit ${i + 1}`);
    });
  });

  it('a batch is answered with an array in order; notifications alone are 202', async () => {
    const { status, body } = await post([
      call('a', 'top_customers', { limit: 1 }),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call('b', 'yoy_growth', {}),
      { jsonrpc: '2.0', id: 'c', method: 'no/such/method' },
    ]);
    assert.equal(status, 200);
    const answers = body as Array<{ id: string; result?: unknown; error?: { code: number } }>;
    assert.deepEqual(
      answers.map((a) => a.id),
      ['a', 'b', 'c'],
    );
    assert.ok(answers[0]!.result && answers[1]!.result);
    assert.equal(answers[2]!.error?.code, -32601);
    const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(notified.status, 202);
    assert.equal(notified.body, undefined);
  });

  it('initialize answers the handshake; the transport rules are the SDK stateless ones', async () => {
    const initialize = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    const init = await post(initialize(1));
    assert.equal(init.status, 200);
    assert.equal(init.body.result.serverInfo.name, 'sales-analytics');
    const twoInits = await post([initialize(1), initialize(2)]);
    assert.equal(twoInits.status, 400);
    assert.match(twoInits.body.error.message, /Only one initialization request/);
    const refused = await post(call(1, 'yoy_growth', {}), { accept: 'application/json' });
    assert.equal(refused.status, 406);
    assert.equal(refused.body.error.code, -32000);
    const version = await post(call(1, 'yoy_growth', {}), { 'mcp-protocol-version': '1999-01-01' });
    assert.equal(version.status, 400);
    assert.match(version.body.error.message, /Unsupported protocol version: 1999-01-01/);
    const garbage = await post({ hello: 'world' });
    assert.equal(garbage.status, 400);
    assert.equal(garbage.body.error.code, -32700);
    const big = await post(Array.from({ length: 101 }, (_, i) => call(i, 'yoy_growth', {})));
    assert.equal(big.status, 400);
    assert.match(big.body.error.message, /Batch must not exceed 100/);
  });

  it("each request's caller decides run_sql: an API key without the scope is refused, beside one that may", async () => {
    const keyed = await buildAnalyticsApp({
      warehouse: fixture.warehouse,
      logger: silentLogger(),
      access: testAccessPolicy(),
    });
    try {
      const sqlAs = (key: 'read' | 'admin') =>
        keyed.inject({
          method: 'POST',
          url: '/mcp',
          headers: { 'content-type': 'application/json', accept: ACCEPT, ...bearer(key) },
          payload: JSON.stringify(call(1, SQL_TOOL, { sql: 'SELECT 42 AS answer' })),
        });
      const [reader, operator] = await Promise.all([sqlAs('read'), sqlAs('admin')]);
      assert.equal(reader.json().result.isError, true);
      assert.match(reader.json().result.content[0].text, /needs the "operate" scope/);
      assert.notEqual(operator.json().result.isError, true, operator.body);
      assert.deepEqual(operator.json().result.structuredContent.rows, [{ answer: 42 }]);
    } finally {
      await keyed.close();
    }
  });
});

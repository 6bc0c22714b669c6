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
import { ORDERS } from '../helpers/hand-made-data.js';

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

/**
 * A view tool's answer is kept whole after its first call (`KeptAnswers`): a repeat of the
 * same call is answered from it without going through the server again, under its own
 * id, until a new build; errors, `run_sql` and other message shapes are never kept.
 */
describe('stateless /mcp: kept answers of view tools', () => {
  let fixture: WarehouseFixture;
  let app: FastifyInstance;
  const remembered: string[] = [];

  before(async () => {
    fixture = await createWarehouseFixture();
    const recording = {
      ...fixture.warehouse,
      remember: ((key, compute, keep) => {
        remembered.push(key);
        return fixture.warehouse.remember(key, compute, keep);
      }) as typeof fixture.warehouse.remember,
    };
    app = await buildAnalyticsApp({ warehouse: recording, logger: silentLogger() });
  });
  after(async () => {
    await app.close();
    await fixture.cleanup();
  });

  const post = async (body: unknown) =>
    app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      payload: JSON.stringify(body),
    });
  const call = (id: number | string, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const toolCalls = async (tool: string) =>
    Number(
      new RegExp(
        `analytics_tool_calls_total\\{[^}]*tool="${tool}"[^}]*outcome="ok"[^}]*\\} (\\d+)`,
      ).exec((await app.inject({ url: '/metrics' })).body)?.[1] ?? 0,
    );

  it('a repeated call is answered from the first answer, under its own id, without the tool running', async () => {
    const first = await post(call(1, 'top_customers', { decile: 1, limit: 3 }));
    assert.equal(first.statusCode, 200);
    const counted = await toolCalls('top_customers');
    remembered.length = 0;
    const again = await post(call('second', 'top_customers', { decile: 1, limit: 3 }));
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.deepEqual(again.json(), { ...first.json(), id: 'second' });
    // Only the kept answer was looked up: the tool's own handler (its cache key) never ran.
    assert.deepEqual(remembered, ['mcp answer top_customers {"decile":1,"limit":3}']);
    assert.equal(await toolCalls('top_customers'), counted + 1, 'a kept answer counts as a call');
    // The same call with request metadata goes through the server, with the same result.
    const withMeta = await post({
      ...call(3, 'top_customers', { decile: 1, limit: 3 }),
      params: { name: 'top_customers', arguments: { decile: 1, limit: 3 }, _meta: {} },
    });
    assert.deepEqual(withMeta.json().result, first.json().result);
  });

  it('a tool error is not kept, nor a run_sql answer', async () => {
    for (const id of [1, 2]) {
      const refused = await post(call(id, 'top_customers', { decile: 42 }));
      assert.equal(refused.json().result.isError, true);
    }
    const randoms = new Set<number>();
    for (const id of [1, 2, 3]) {
      const answer = await post(call(id, SQL_TOOL, { sql: 'SELECT random() AS r' }));
      randoms.add(answer.json().result.structuredContent.rows[0].r);
    }
    assert.equal(randoms.size, 3);
    remembered.length = 0;
    await post(call(3, 'top_customers', { decile: 42 }));
    assert.ok(remembered.includes('mcp answer top_customers {"decile":42}'), 'looked up again');
  });

  it('a new build is answered afresh (no kept answer of the previous build)', async () => {
    const before = await post(call(1, 'sales_summary', {}));
    assert.deepEqual(
      (await post(call(2, 'sales_summary', {}))).json().result,
      before.json().result,
    );
    await fixture.build({
      items: [['o99', '1', 'p1', '100.00', '1.00']],
      orders: [...ORDERS, ['o99', 'c1', '2019-09-09 09:09:09']],
    });
    const after = (await post(call(3, 'sales_summary', {}))).json().result.structuredContent;
    const previous = before.json().result.structuredContent;
    assert.notEqual(after.meta.build_id, previous.meta.build_id);
    assert.equal(after.data[0].total_lifetime_orders, previous.data[0].total_lifetime_orders + 1);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createCounterStore, createRateLimiter, listen } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { buildAnalyticsApp } from '../../src/app.js';
import { SQL_TOOL } from '../../src/mcp/mcp-server.js';
import { READ_NAMES, READS } from '../../src/sales/catalog.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

const TRANSPORTS: Record<string, (base: string) => Transport> = {
  'Streamable HTTP (/mcp)': (base) => new StreamableHTTPClientTransport(new URL(`${base}/mcp`)),
  'legacy SSE (/sse + /messages)': (base) => new SSEClientTransport(new URL(`${base}/sse`)),
};

describe('MCP', () => {
  let fixture: WarehouseFixture;
  let app: FastifyInstance;
  let base: string;

  before(async () => {
    fixture = await createWarehouseFixture();
    app = await buildAnalyticsApp({
      warehouse: fixture.warehouse,
      logger: silentLogger(),
      sqlMaxRows: 3,
    });
    base = await listen(app, { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    await fixture.cleanup();
  });

  const rest = async (path: string) => (await fetch(`${base}${path}`)).json();

  for (const [label, makeTransport] of Object.entries(TRANSPORTS)) {
    describe(label, () => {
      let client: Client;
      before(async () => {
        client = new Client({ name: 'analytics-test', version: '1.0.0' });
        await client.connect(makeTransport(base));
      });
      after(async () => client.close());

      it('the handshake names the server and lists the six tools with descriptions and typed, bounded parameters', async () => {
        assert.equal(client.getServerVersion()?.name, 'sales-analytics');
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name).sort();
        assert.deepEqual(names, [...READ_NAMES.map((n) => READS[n].tool), SQL_TOOL].sort());
        const top = tools.find((t) => t.name === 'top_customers')!;
        assert.ok(top.description && top.description.length > 40);
        const decile = top.inputSchema.properties!.decile as {
          type: string;
          minimum: number;
          maximum: number;
        };
        assert.deepEqual([decile.type, decile.minimum, decile.maximum], ['integer', 1, 10]);
        assert.equal(tools.find((t) => t.name === SQL_TOOL)!.inputSchema.required?.[0], 'sql');
        const output = top.outputSchema as unknown as {
          properties: { data: { items: { properties: Record<string, unknown> } } };
        };
        assert.deepEqual(
          Object.keys(output.properties.data.items.properties),
          Object.keys(READS.top_customers.columns),
        );
      });

      it("tool schemas are portable: no `type` arrays anywhere, nullable fields as anyOf (the Inspector's strict check)", async () => {
        const { tools } = await client.listTools();
        const typeArrays = tools.flatMap((tool) => [
          ...typeArraysIn(tool.inputSchema, `${tool.name}.inputSchema`),
          ...typeArraysIn(tool.outputSchema, `${tool.name}.outputSchema`),
        ]);
        assert.deepEqual(typeArrays, []);
        const ratio = (
          tools.find((t) => t.name === READS.category_analysis.tool)!.outputSchema as unknown as {
            properties: { data: { items: { properties: Record<string, unknown> } } };
          }
        ).properties.data.items.properties.freight_to_revenue_ratio as { anyOf: unknown[] };
        assert.deepEqual(
          ratio.anyOf.map((member) => (member as { type: string }).type),
          ['number', 'null'],
        );
      });

      for (const name of READ_NAMES) {
        it(`${READS[name].tool} answers what ${READS[name].path} answers`, async () => {
          const result = await client.callTool({ name: READS[name].tool, arguments: {} });
          assert.notEqual(result.isError, true);
          const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
          assert.deepEqual(JSON.parse(text), await rest(READS[name].path));
          assert.deepEqual(result.structuredContent, JSON.parse(text));
        });
      }

      it('tool arguments filter like the REST parameters', async () => {
        const result = await client.callTool({
          name: 'top_customers',
          arguments: { decile: 1, limit: 1 },
        });
        assert.deepEqual(
          result.structuredContent,
          await rest('/api/v1/analytics/customer-ltv?decile=1&limit=1'),
        );
      });

      it('out-of-range arguments are an error result, not a crash', async () => {
        const result = await client.callTool({ name: 'top_customers', arguments: { decile: 11 } });
        assert.equal(result.isError, true);
        assert.match(JSON.stringify(result.content), /decile/);
      });

      it('run_sql answers a SELECT with a row cap and refuses a write', async () => {
        const ok = await client.callTool({
          name: SQL_TOOL,
          arguments: { sql: 'SELECT order_id FROM raw_data.gold.fact_sales ORDER BY 1' },
        });
        const body = ok.structuredContent as {
          rows: unknown[];
          truncated: boolean;
          max_rows: number;
        };
        assert.equal(body.rows.length, 3);
        assert.equal(body.truncated, true);
        const refused = await client.callTool({
          name: SQL_TOOL,
          arguments: { sql: 'WITH x AS (SELECT 1) DELETE FROM raw_data.gold.fact_sales' },
        });
        assert.equal(refused.isError, true);
        assert.match(
          (refused.content as Array<{ text: string }>)[0]!.text,
          /Only SELECT statements are allowed/,
        );
      });
    });
  }

  it('counts tool calls by tool and outcome in /metrics', async () => {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const count = (tool: string, outcome: string) =>
      Number(
        new RegExp(
          `analytics_tool_calls_total\\{[^}]*tool="${tool}"[^}]*outcome="${outcome}"[^}]*\\} (\\d+)`,
        ).exec(metrics)?.[1] ?? 0,
      );
    assert.ok(count('sales_summary', 'ok') >= 2, metrics.slice(0, 200));
    assert.ok(count('run_sql', 'error') >= 2);
  });

  it('refuses browser requests from another origin (DNS rebinding), not same-origin ones', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const evil = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...headers, origin: 'http://evil.example' },
      body,
    });
    assert.equal(evil.status, 403);
    const sse = await fetch(`${base}/sse`, { headers: { origin: 'http://attacker.test:8000' } });
    assert.equal(sse.status, 403);
    const same = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...headers, origin: base },
      body,
    });
    assert.equal(same.status, 200);
    assert.equal(((await same.json()) as { result: { tools: unknown[] } }).result.tools.length, 6);
  });

  it('GET /mcp is 405 (stateless server), and a message for an unknown SSE session is 404', async () => {
    const get = await fetch(`${base}/mcp`, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const post = await fetch(`${base}/messages?sessionId=nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(post.status, 404);
  });

  it('closing the app ends open SSE sessions instead of waiting for them', async () => {
    const other = await buildAnalyticsApp({ warehouse: fixture.warehouse, logger: silentLogger() });
    const otherBase = await listen(other, { port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'lingering', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL(`${otherBase}/sse`)));
    await client.listTools();
    const started = performance.now();
    await other.close();
    assert.ok(performance.now() - started < 3000, 'closed promptly');
    await client.close();
  });
  it('run_sql counts per client: past the rate bound a client gets a tool error, the view tools still answer', async () => {
    const other = await buildAnalyticsApp({
      warehouse: fixture.warehouse,
      logger: silentLogger(),
      sqlRateLimit: createRateLimiter(createCounterStore({ now: () => 1_000_000 }), {
        limit: 2,
        windowSeconds: 60,
        name: 'mcp-sql-test',
      }),
    });
    const otherBase = await listen(other, { port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'eager', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${otherBase}/mcp`)));
    const sql = () => client.callTool({ name: SQL_TOOL, arguments: { sql: 'SELECT 1 AS one' } });
    const text = (result: Awaited<ReturnType<typeof sql>>) =>
      (result.content as Array<{ text: string }>)[0]!.text;
    for (let i = 0; i < 2; i++) assert.notEqual((await sql()).isError, true);
    const refused = await sql();
    assert.equal(refused.isError, true);
    assert.match(text(refused), /Too many SQL queries: at most 2 per client/);
    const view = await client.callTool({ name: READS.sales_summary.tool, arguments: {} });
    assert.notEqual(view.isError, true);
    await client.close();
    await other.close();
  });
});

/** Where a JSON Schema uses `type: [...]`, which single-type dialects reject. */
function typeArraysIn(schema: unknown, at: string): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const found = Array.isArray((schema as { type?: unknown }).type) ? [at] : [];
  return found.concat(
    Object.entries(schema).flatMap(([key, value]) => typeArraysIn(value, `${at}.${key}`)),
  );
}

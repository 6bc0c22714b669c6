import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildAnalyticsApp } from '../../src/app.js';
import { hostName } from '../../src/http/host-guard.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

const MCP_LIST = {
  method: 'POST' as const,
  url: '/mcp',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
};

describe('host and origin allow-lists (DNS rebinding)', () => {
  let fixture: WarehouseFixture;
  let loopbackOnly: FastifyInstance;
  let configured: FastifyInstance;
  before(async () => {
    fixture = await createWarehouseFixture();
    loopbackOnly = await buildAnalyticsApp({
      warehouse: fixture.warehouse,
      logger: silentLogger(),
    });
    configured = await buildAnalyticsApp({
      warehouse: fixture.warehouse,
      logger: silentLogger(),
      hostGuard: {
        allowedHosts: ['analytics.example.com'],
        allowedOrigins: ['https://dash.example.com'],
      },
    });
  });
  after(async () => {
    await loopbackOnly.close();
    await configured.close();
    await fixture.cleanup();
  });

  it('answers loopback names by default, on REST and MCP', async () => {
    for (const host of ['127.0.0.1:8000', 'localhost:8000', '[::1]:8000', 'localhost']) {
      const rest = await loopbackOnly.inject({ url: '/api/v1/sales/kpis', headers: { host } });
      assert.equal(rest.statusCode, 200, host);
    }
    const mcp = await loopbackOnly.inject({
      ...MCP_LIST,
      headers: { ...MCP_LIST.headers, host: '127.0.0.1:8000', origin: 'http://127.0.0.1:8000' },
    });
    assert.equal(mcp.statusCode, 200);
  });

  it('refuses a rebound name even when its Origin matches its Host', async () => {
    const headers = { host: 'attacker.example:8000', origin: 'http://attacker.example:8000' };
    const rest = await loopbackOnly.inject({ url: '/api/v1/sales/kpis', headers });
    assert.equal(rest.statusCode, 403);
    assert.match(rest.json().detail, /Host "attacker\.example:8000" is not allowed/);
    const mcp = await loopbackOnly.inject({
      ...MCP_LIST,
      headers: { ...MCP_LIST.headers, ...headers },
    });
    assert.equal(mcp.statusCode, 403);
    const chat = await loopbackOnly.inject({
      method: 'POST',
      url: '/api/v1/agent/chat',
      headers,
      payload: { message: 'revenue' },
    });
    assert.equal(chat.statusCode, 403);
  });

  it('refuses a browser origin that is not allowed, on a loopback host', async () => {
    const response = await loopbackOnly.inject({
      url: '/api/v1/sales/kpis',
      headers: { host: '127.0.0.1:8000', origin: 'http://evil.example' },
    });
    assert.equal(response.statusCode, 403);
    assert.match(response.json().detail, /Origin "http:\/\/evil\.example" is not allowed/);
  });

  it('keeps /health open to probes whatever their Host', async () => {
    const response = await loopbackOnly.inject({
      url: '/health',
      headers: { host: '10.0.0.7:8000' },
    });
    assert.notEqual(response.statusCode, 403);
  });

  it('follows ALLOWED_HOSTS and ALLOWED_ORIGINS when set (loopback is then not implied)', async () => {
    const allowed = await configured.inject({
      url: '/api/v1/sales/kpis',
      headers: { host: 'analytics.example.com', origin: 'https://dash.example.com' },
    });
    assert.equal(allowed.statusCode, 200);
    const otherOrigin = await configured.inject({
      url: '/api/v1/sales/kpis',
      headers: { host: 'analytics.example.com', origin: 'http://127.0.0.1:8000' },
    });
    assert.equal(otherOrigin.statusCode, 403);
    const loopbackHost = await configured.inject({
      url: '/api/v1/sales/kpis',
      headers: { host: '127.0.0.1:8000' },
    });
    assert.equal(loopbackHost.statusCode, 403);
  });

  it('reads host names with and without ports, IPv6 in brackets', () => {
    assert.equal(hostName('Example.COM:8000'), 'example.com');
    assert.equal(hostName('[::1]:8000'), '::1');
    assert.equal(hostName('[::1]'), '::1');
    assert.equal(hostName('localhost'), 'localhost');
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  ACCESS_DETAILS,
  createHttpApp,
  createLogger,
  parseApiKeys,
  type AccessPolicy,
} from '../../../src/index.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const OPS = 'ops-key-0123456789abcdef';
const READER = 'reader-key-0123456789abc';
const SUBMITTER = 'submitter-key-0123456789';

async function buildApp(access?: AccessPolicy): Promise<FastifyInstance> {
  const app = await createHttpApp({ service: 'test', logger, ...(access ? { access } : {}) });
  app.get(
    '/things',
    { config: { scope: 'read' }, schema: { summary: 'Read things' } },
    async (request) => ({ key: request.apiKeyName ?? null }),
  );
  app.post('/things', { config: { scope: 'submit' } }, async () => ({ ok: true }));
  app.post('/admin/pause', { config: { scope: 'operate' } }, async () => ({ paused: true }));
  app.get('/public', { config: { scope: 'open' } }, async () => ({ hello: 'world' }));
  app.get('/undeclared', async () => ({ reached: true }));
  await app.ready();
  return app;
}

const keyed: AccessPolicy = {
  keys: parseApiKeys(`ops:${OPS},reader:${READER}:read,bot:${SUBMITTER}:submit+read`),
  metricsScope: 'operate',
  docsScope: 'open',
};
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const REMOTE = { remoteAddress: '203.0.113.9' };

describe('with API keys', () => {
  test('no key or a wrong key is 401 with WWW-Authenticate; the body is a detail and a code', async () => {
    const app = await buildApp(keyed);
    const missing = { detail: ACCESS_DETAILS.missing, code: 'API_KEY_MISSING' };
    const invalid = { detail: ACCESS_DETAILS.invalid, code: 'API_KEY_INVALID' };
    for (const [headers, body] of [
      [{}, missing],
      [{ authorization: 'Basic b3BzOng=' }, missing],
      [{ authorization: 'Bearer' }, missing],
      [bearer(`${OPS}x`), invalid],
      [bearer(OPS.slice(0, -1)), invalid],
      [{ authorization: `Bearer ${OPS} extra` }, missing],
    ] as const) {
      const response = await app.inject({ url: '/things', headers });
      assert.equal(response.statusCode, 401, JSON.stringify(headers));
      assert.equal(response.headers['www-authenticate'], 'Bearer');
      assert.deepEqual(response.json(), body);
    }
    await app.close();
  });

  test('a key reaches the routes of its scopes, 403 otherwise; loopback is not special', async () => {
    const app = await buildApp(keyed);
    const call = (method: 'GET' | 'POST', url: string, key: string) =>
      app.inject({ method, url, headers: bearer(key) });
    assert.deepEqual((await call('GET', '/things', READER)).json(), { key: 'reader' });
    assert.equal((await call('GET', '/things', OPS)).statusCode, 200);
    assert.equal((await call('POST', '/things', SUBMITTER)).statusCode, 200);
    assert.equal((await call('POST', '/admin/pause', OPS)).statusCode, 200);
    const denied = await call('POST', '/things', READER);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), {
      detail: 'The API key "reader" does not have the "submit" scope.',
      code: 'SCOPE_MISSING',
    });
    assert.equal((await call('POST', '/admin/pause', SUBMITTER)).statusCode, 403);
    // A loopback client still needs a key once keys are set.
    assert.equal((await app.inject({ method: 'POST', url: '/admin/pause' })).statusCode, 401);
    await app.close();
  });

  test('undeclared routes need operate; open routes, /health, /docs and unknown paths need nothing', async () => {
    const app = await buildApp(keyed);
    assert.equal(
      (await app.inject({ url: '/undeclared', headers: bearer(READER) })).statusCode,
      403,
    );
    assert.equal((await app.inject({ url: '/undeclared', headers: bearer(OPS) })).statusCode, 200);
    for (const url of ['/public', '/health', '/openapi.json', '/docs/json']) {
      assert.equal((await app.inject({ url, ...REMOTE })).statusCode, 200, url);
    }
    assert.equal((await app.inject({ url: '/nowhere', ...REMOTE })).statusCode, 404);
    assert.equal((await app.inject({ url: '/metrics' })).statusCode, 401);
    assert.equal((await app.inject({ url: '/metrics', headers: bearer(READER) })).statusCode, 403);
    await app.close();
  });

  test('/metrics counts requests by key name and outcome, never the key', async () => {
    const app = await buildApp(keyed);
    await app.inject({ url: '/things' });
    await app.inject({ url: '/things', headers: bearer('wrong-key-wrong-key-wrong') });
    await app.inject({ method: 'POST', url: '/things', headers: bearer(READER) });
    await app.inject({ url: '/things', headers: bearer(READER) });
    const text = (await app.inject({ url: '/metrics', headers: bearer(OPS) })).body;
    for (const line of [
      'api_key_requests_total{key="none",outcome="unauthenticated",service="test"} 1',
      'api_key_requests_total{key="invalid",outcome="unauthenticated",service="test"} 1',
      'api_key_requests_total{key="reader",outcome="forbidden",service="test"} 1',
      'api_key_requests_total{key="reader",outcome="accepted",service="test"} 1',
    ]) {
      assert.ok(text.includes(line), line);
    }
    for (const secret of [OPS, READER, SUBMITTER, 'wrong-key']) assert.ok(!text.includes(secret));
    await app.close();
  });

  test('the key is checked before the body is read', async () => {
    const app = await buildApp(keyed);
    const response = await app.inject({
      method: 'POST',
      url: '/things',
      payload: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.statusCode, 401);
    await app.close();
  });
});

describe('without API keys (local mode)', () => {
  test('operate routes (and undeclared ones) answer only loopback peers; others answer anyone', async () => {
    const app = await buildApp();
    for (const remoteAddress of ['127.0.0.1', '127.8.0.1', '::1', '::ffff:127.0.0.1']) {
      assert.equal(
        (await app.inject({ method: 'POST', url: '/admin/pause', remoteAddress })).statusCode,
        200,
        remoteAddress,
      );
    }
    const remote = await app.inject({ method: 'POST', url: '/admin/pause', ...REMOTE });
    assert.equal(remote.statusCode, 403);
    assert.deepEqual(remote.json(), { detail: ACCESS_DETAILS.localOnly, code: 'LOCAL_ONLY' });
    assert.equal((await app.inject({ url: '/undeclared', ...REMOTE })).statusCode, 403);
    assert.equal((await app.inject({ url: '/metrics', ...REMOTE })).statusCode, 403);
    assert.equal((await app.inject({ url: '/metrics' })).statusCode, 200);
    for (const url of ['/things', '/public', '/health'])
      assert.equal((await app.inject({ url, ...REMOTE })).statusCode, 200, url);
    assert.equal((await app.inject({ method: 'POST', url: '/things', ...REMOTE })).statusCode, 200);
    await app.close();
  });

  test('a forwarding header never makes a remote peer local', async () => {
    const app = await buildApp();
    const headers = {
      'edge-connecting-ip': '127.0.0.1',
      'x-forwarded-for': '127.0.0.1',
      forwarded: 'for=127.0.0.1',
    };
    assert.equal(
      (await app.inject({ method: 'POST', url: '/admin/pause', headers, ...REMOTE })).statusCode,
      403,
    );
    await app.close();
  });
});

test('the OpenAPI document names a bearer scheme per scope and the one each operation needs', async () => {
  const app = await buildApp(keyed);
  const document = (await app.inject('/openapi.json')).json();
  for (const scope of ['read', 'submit', 'operate'])
    assert.equal(document.components.securitySchemes[`${scope}Key`].scheme, 'bearer');
  assert.deepEqual(document.paths['/things'].get.security, [{ readKey: [] }]);
  assert.equal(document.paths['/things'].get['x-scope'], 'read');
  assert.deepEqual(document.paths['/admin/pause'].post.security, [{ operateKey: [] }]);
  assert.equal(document.paths['/admin/pause'].post['x-scope'], 'operate');
  // Open operations say so explicitly, overriding any document-wide requirement.
  assert.deepEqual(document.paths['/public'].get.security, []);
  assert.deepEqual(document.paths['/health'].get.security, []);
  await app.close();
});

test('a route declaring an unknown scope is refused at registration', async () => {
  const app = await createHttpApp({ service: 'test', logger });
  assert.throws(
    () => app.get('/x', { config: { scope: 'admin' as 'read' } }, async () => ({})),
    /config.scope must be/,
  );
  await app.close();
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createHttpApp, createLogger, defineErrors } from '../../src/index.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const errors = defineErrors({
  THING_MISSING: { status: 404, detail: 'No such thing.' },
  TOO_MANY: { status: 429, detail: 'Slow down.' },
});

async function buildApp(health: Record<string, () => Promise<unknown>> = {}) {
  const app = await createHttpApp({
    service: 'test',
    logger,
    health,
    openapi: { title: 'Test API', version: '9.9.9' },
  });
  app.get(
    '/things/:id',
    {
      schema: {
        summary: 'One thing',
        params: { type: 'object', properties: { id: { type: 'integer' } } },
      },
    },
    async (request) => {
      const { id } = request.params as { id: number };
      if (id === 0) throw errors.THING_MISSING();
      if (id === 1) throw errors.TOO_MANY({ headers: { 'retry-after': '60' }, body: { limit: 5 } });
      if (id === 2) throw new Error('secret internal path /etc/passwd');
      return { id };
    },
  );
  app.post(
    '/echo',
    {
      schema: {
        body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
    },
    async (request) => request.body,
  );
  await app.ready();
  return app;
}

describe('createHttpApp', () => {
  test('health is 200 with every dependency up, 503 when one is down', async () => {
    const healthy = await buildApp({ db: async () => 'pglite', storage: async () => undefined });
    const ok = await healthy.inject('/health');
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().status, 'ok');
    assert.equal(ok.json().dependencies.db.status, 'up');
    assert.equal(ok.json().dependencies.db.info, 'pglite');

    const sick = await buildApp({
      db: async () => 'pglite',
      redis: async () => {
        throw new Error('connection refused');
      },
    });
    const down = await sick.inject('/health');
    assert.equal(down.statusCode, 503);
    assert.equal(down.json().status, 'unavailable');
    assert.deepEqual(
      [down.json().dependencies.redis.status, down.json().dependencies.redis.error],
      ['down', 'connection refused'],
    );
    await Promise.all([healthy.close(), sick.close()]);
  });

  test('coded errors answer with their status, detail, headers and extras', async () => {
    const app = await buildApp();
    const missing = await app.inject('/things/0');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { detail: 'No such thing.', code: 'THING_MISSING' });
    const limited = await app.inject('/things/1');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '60');
    assert.deepEqual(limited.json(), { limit: 5, detail: 'Slow down.', code: 'TOO_MANY' });
    await app.close();
  });

  test('a query or path value coerced to a number that is not finite is a validation failure', async () => {
    const app = await createHttpApp({ service: 'test', logger });
    app.get(
      '/things/:id',
      { schema: { params: { type: 'object', properties: { id: { type: 'integer' } } } } },
      async (request) => request.params,
    );
    app.get(
      '/bounded',
      {
        schema: {
          querystring: {
            type: 'object',
            properties: { n: { type: 'number', minimum: 0 }, k: { type: 'integer' } },
            additionalProperties: false,
          },
        },
      },
      async (request) => request.query,
    );
    for (const [url, detail] of [
      ['/things/Infinity', 'params/id must be a finite number'],
      ['/bounded?n=Infinity', 'querystring/n must be a finite number'],
      ['/bounded?n=1e999', 'querystring/n must be a finite number'],
      ['/bounded?k=-Infinity', 'querystring/k must be a finite number'],
      // Ajv's own text does not say which parameter is unknown; the detail does.
      ['/bounded?n=1&colour=red', 'querystring must NOT have additional properties: colour'],
    ] as const) {
      const response = await app.inject(url);
      assert.equal(response.statusCode, 400, url);
      assert.deepEqual(response.json(), { detail, code: 'REQUEST_INVALID' }, url);
    }
    assert.deepEqual((await app.inject('/bounded?n=2.5&k=3')).json(), { n: 2.5, k: 3 });
    await app.close();
  });

  test('unknown errors are a bare 500 with no internals; unknown routes a 404', async () => {
    const app = await buildApp();
    const crash = await app.inject('/things/2');
    assert.equal(crash.statusCode, 500);
    assert.deepEqual(crash.json(), { detail: 'Internal Server Error', code: 'INTERNAL_ERROR' });
    assert.doesNotMatch(crash.body, /passwd|stack|at /);
    const nowhere = await app.inject('/nowhere');
    assert.equal(nowhere.statusCode, 404);
    assert.deepEqual(nowhere.json(), { detail: 'Not Found', code: 'ROUTE_NOT_FOUND' });
    await app.close();
  });

  test('schema and body errors are 4xx with a detail and a code', async () => {
    const app = await buildApp();
    const invalid = await app.inject({ method: 'POST', url: '/echo', payload: { other: 1 } });
    assert.equal(invalid.statusCode, 400);
    assert.match(invalid.json().detail, /name/);
    assert.equal(invalid.json().code, 'REQUEST_INVALID');
    const badJson = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(badJson.statusCode, 400);
    assert.equal(typeof badJson.json().detail, 'string');
    assert.equal(badJson.json().code, 'REQUEST_INVALID');
    const tooLarge = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(tooLarge.statusCode, 413);
    assert.equal(tooLarge.json().code, 'BODY_TOO_LARGE');
    const wrongMedia = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/x-unknown' },
      payload: 'name=x',
    });
    assert.equal(wrongMedia.statusCode, 415);
    assert.equal(wrongMedia.json().code, 'MEDIA_TYPE_UNSUPPORTED');
    const badUrl = await app.inject('/things/%ZZ');
    assert.equal(badUrl.statusCode, 400);
    assert.equal(typeof badUrl.json().detail, 'string');
    assert.equal(badUrl.json().code, 'REQUEST_INVALID');
    const wrongType = await app.inject('/things/abc');
    assert.equal(wrongType.statusCode, 400);
    await app.close();
  });

  test('request ids are generated, or kept when the caller sends a sane one', async () => {
    const app = await buildApp();
    const fresh = await app.inject('/things/5');
    assert.match(String(fresh.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const kept = await app.inject({ url: '/things/5', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(kept.headers['x-request-id'], 'abc-123');
    const hostile = await app.inject({
      url: '/things/5',
      headers: { 'x-request-id': 'a b\u0000c' },
    });
    assert.notEqual(hostile.headers['x-request-id'], 'a b\u0000c');
    await app.close();
  });

  test('metrics expose process metrics and request durations by route and status', async () => {
    const app = await buildApp();
    await app.inject('/things/5');
    await app.inject('/things/0');
    const metrics = await app.inject('/metrics');
    assert.equal(metrics.statusCode, 200);
    assert.match(String(metrics.headers['content-type']), /text\/plain/);
    assert.match(metrics.body, /process_cpu_user_seconds_total/);
    assert.match(
      metrics.body,
      /http_request_duration_seconds_count\{service="test",method="GET",route="\/things\/:id",status_code="200"\} 1/,
    );
    assert.match(
      metrics.body,
      /http_request_duration_seconds_count\{service="test",method="GET",route="\/things\/:id",status_code="404"\} 1/,
    );
    await app.close();
  });

  test('serves an OpenAPI document built from the route schemas', async () => {
    const app = await buildApp();
    const doc = (await app.inject('/openapi.json')).json();
    assert.equal(doc.openapi, '3.0.3');
    assert.equal(doc.info.version, '9.9.9');
    assert.equal(doc.paths['/things/{id}'].get.summary, 'One thing');
    assert.ok(doc.paths['/health']);
    assert.equal((await app.inject('/docs/')).statusCode, 200);
    await app.close();
  });
});

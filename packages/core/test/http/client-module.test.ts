/** The client module the pages import: served as JavaScript, cacheable, documented, and a working createClient. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  CLIENT_MODULE_PATH,
  createHttpApp,
  createLogger,
  registerClientModule,
} from '../../src/index.js';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('client module route', () => {
  let app: FastifyInstance;
  const dir = mkdtempSync(join(tmpdir(), 'client-module-'));
  before(async () => {
    // The response check is on: each answer below is also checked against the document.
    app = await createHttpApp({
      service: 'test',
      logger,
      responseCheck: true,
      openapi: { title: 'test', version: '1', tags: [{ name: 'pages', description: 'Pages' }] },
    });
    registerClientModule(app, 'pages');
    await app.ready();
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('answers openapi-fetch as a JavaScript module with an ETag and a cache lifetime', async () => {
    const res = await app.inject({ method: 'GET', url: CLIENT_MODULE_PATH });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.match(String(res.headers['cache-control']), /max-age=\d+/);
    assert.match(String(res.headers.etag), /^"[\w-]+"$/);
    assert.match(res.body, /createClient as default/, "openapi-fetch's default export");
    assert.doesNotMatch(res.body, /sourceMappingURL/, 'no pointer to a map that is not served');
    assert.equal(res.headers['x-openapi-violation'], undefined);
  });

  test('a matching If-None-Match answers 304 without a body; a stale one gets the module', async () => {
    const first = await app.inject({ method: 'GET', url: CLIENT_MODULE_PATH });
    const etag = String(first.headers.etag);
    const cached = await app.inject({
      method: 'GET',
      url: CLIENT_MODULE_PATH,
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.body, '');
    assert.equal(cached.headers.etag, etag);
    const stale = await app.inject({
      method: 'GET',
      url: CLIENT_MODULE_PATH,
      headers: { 'if-none-match': '"an-old-version"' },
    });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.body, first.body);
  });

  test('the document describes the route: operationId, tag, 200 as text/javascript and 304', () => {
    const doc = app.swagger() as {
      paths: Record<string, { get: { operationId: string; tags: string[]; responses: object } }>;
    };
    const operation = doc.paths[CLIENT_MODULE_PATH]!.get;
    assert.equal(operation.operationId, 'getClientModule');
    assert.deepEqual(operation.tags, ['pages']);
    const responses = operation.responses as Record<string, { content?: object }>;
    assert.deepEqual(Object.keys(responses['200']!.content ?? {}), ['text/javascript']);
    assert.ok(responses['304'], '304 declared');
  });

  test('the served module imports and its client calls a documented path', async () => {
    const res = await app.inject({ method: 'GET', url: CLIENT_MODULE_PATH });
    const file = join(dir, 'openapi-fetch.mjs');
    writeFileSync(file, res.body);
    const { default: createClient } = (await import(pathToFileURL(file).href)) as {
      default: (options: object) => {
        GET(path: string, init: object): Promise<{ data?: unknown; response: Response }>;
      };
    };
    const seen: string[] = [];
    const client = createClient({
      baseUrl: 'http://service.test',
      fetch: async (request: Request) => {
        seen.push(request.url);
        return Response.json({ job_id: 'a b' });
      },
    });
    const { data } = await client.GET('/v1/jobs/{job_id}', { params: { path: { job_id: 'a b' } } });
    assert.deepEqual(seen, ['http://service.test/v1/jobs/a%20b']);
    assert.deepEqual(data, { job_id: 'a b' });
  });
});

// The dashboard page's files without a browser: the page at `/` with its CSP, and every
// script it names or imports served by the service itself (no other origin).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildAnalyticsApp } from '../../src/app.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

describe('dashboard page', () => {
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

  it('serves the dashboard at / with a same-origin CSP and its scripts as files', async () => {
    const page = await app.inject({ method: 'GET', url: '/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(page.headers['content-security-policy'] as string, /default-src 'self'/);
    assert.doesNotMatch(page.body, /<script>|<script [^>]*src="(https?:)?\/\//);
    const scripts = [...page.body.matchAll(/<script (?:type="module" )?src="([^"]+)">/g)].map(
      (m) => m[1]!,
    );
    assert.deepEqual(scripts, [
      '/static/vendor/chart.umd.min.js',
      '/static/charts.js',
      '/static/dashboard.js',
    ]);
    assert.match(page.body, /<script type="module" src="\/static\/dashboard.js">/);
    // The dashboard is a module: what it imports is served here too (the typed client's runtime).
    const imported: string[] = [];
    for (const url of scripts) {
      const script = await app.inject({ method: 'GET', url });
      assert.equal(script.statusCode, 200, url);
      assert.match(script.headers['content-type'] as string, /text\/javascript/, url);
      assert.ok(script.body.length > 1000, url);
      imported.push(
        ...[...script.body.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]!),
      );
    }
    assert.deepEqual(imported, ['/assets/openapi-fetch.js']);
    const client = await app.inject({ method: 'GET', url: imported[0]! });
    assert.equal(client.statusCode, 200);
    assert.match(client.headers['content-type'] as string, /^text\/javascript/);
    assert.match(client.body, /createClient as default/);
    const library = await app.inject({ method: 'GET', url: '/static/vendor/chart.umd.min.js' });
    assert.match(library.body, /Chart\.js v4/);
    assert.doesNotMatch(library.body, /sourceMappingURL/);
  });
});

/** Home and player pages as HTML: every render option in the form, escaping, OpenGraph video tags, 404. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.js';
import { openTestEngines, type TestEngines } from '../helpers/harness.js';
import { seedJobs } from '../helpers/outbox.js';
import { EXTRA_RENDER_PARAMETERS } from '../../src/jobs/extra-render-parameters.js';

describe('pages', () => {
  let engines: TestEngines;
  let app: FastifyInstance;
  let ids: string[];
  before(async () => {
    engines = await openTestEngines('embedded');
    app = await buildTestApp(engines);
    ids = await seedJobs(engines, 2);
    await engines.ctx.store.put('skins/Fancy Skin.osk', 'PK');
    await engines.ctx.db.query(
      `UPDATE render_jobs SET status = 'completed', progress = 100, map_title = '<script>alert(1)</script> - Song [Hard]' WHERE id = $1`,
      [ids[0]],
    );
  });
  after(async () => {
    await app?.close();
    await engines?.close();
  });

  test('home page: the form carries every render option, the skins and the recent jobs', async () => {
    const res = await app.inject('/');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    for (const name of [
      'replay',
      'skin',
      'resolution',
      'bg_dim',
      'motion_blur',
      'storyboard',
      'video',
      'snaking_in',
      'snaking_out',
      'hit_error_meter',
      'key_overlay',
      ...EXTRA_RENDER_PARAMETERS.map((p) => p.field),
    ]) {
      assert.ok(res.body.includes(`name="${name}"`), `field ${name}`);
    }
    assert.ok(res.body.includes('<option value="Fancy Skin">Fancy Skin</option>'));
    assert.ok(res.body.includes('id="skin-form"'));
    for (const id of ids) assert.ok(res.body.includes(`/view/${id}`));
    assert.ok(!res.body.includes('<script>alert(1)</script>'), 'map titles are escaped');
  });

  test('player page: status, progress, OpenGraph video tags, escaped title', async () => {
    const res = await app.inject({
      url: `/view/${ids[0]!.replaceAll('-', '')}`,
      headers: { host: 'render.example:8727' },
    });
    assert.equal(res.statusCode, 200);
    assert.ok(
      res.body.includes(
        `<meta property="og:video" content="http://render.example:8727/v1/artifacts/videos/${ids[0]}.mp4">`,
      ),
    );
    assert.ok(res.body.includes('<meta property="og:video:type" content="video/mp4">'));
    assert.ok(
      res.body.includes(
        `<meta property="og:image" content="http://render.example:8727/v1/artifacts/thumbnails/${ids[0]}.jpg">`,
      ),
    );
    assert.ok(res.body.includes('<meta property="og:type" content="video.other">'));
    assert.ok(!res.body.includes('<script>alert(1)</script>'));
    assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(res.body.includes('id="progress"'));
  });

  test('player page of an unknown job → 404 page', async () => {
    const res = await app.inject('/view/00000000-0000-4000-8000-000000000000');
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /Job not found/);
    assert.equal((await app.inject('/view/%3Cscript%3E')).statusCode, 404);
  });

  test('OpenAPI document lists every route with a summary', async () => {
    const doc = (await app.inject('/openapi.json')).json();
    for (const path of [
      '/v1/render',
      '/v1/jobs',
      '/v1/jobs/{job_id}',
      '/v1/skins',
      '/v1/skins/upload',
      '/v1/artifacts/{path}',
      '/v1/jobs/{job_id}/callback',
      '/render',
      '/status/{job_id}',
      '/jobs',
      '/view/{job_id}',
    ]) {
      const item = doc.paths[path];
      assert.ok(item, `path ${path} in ${Object.keys(doc.paths).join(', ')}`);
      for (const op of Object.values(item) as { summary?: string }[])
        assert.ok(op.summary, `${path} has a summary`);
    }
  });

  test('health reports db, storage and counters; metrics carry the service metrics', async () => {
    const health = await app.inject('/health');
    assert.equal(health.statusCode, 200);
    const deps = health.json().dependencies;
    assert.deepEqual(Object.keys(deps).sort(), ['counters', 'db', 'storage']);
    assert.equal(deps.db.info, 'pglite');
    await app.inject({
      method: 'POST',
      url: '/v1/render',
      payload: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    const metrics = (await app.inject('/metrics')).body;
    assert.match(metrics, /render_jobs\{status="completed",service="render"\} 1/);
    assert.match(metrics, /render_jobs\{status="queued",service="render"\} 1/);
    assert.match(
      metrics,
      /render_submissions_total\{route="\/v1\/render",status_code="400",service="render"\} 1/,
    );
    assert.match(metrics, /render_outbox_pending\{service="render"\} 2/);
  });
});

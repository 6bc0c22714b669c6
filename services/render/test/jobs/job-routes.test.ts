/** GET /v1/jobs and /v1/jobs/{id}, and the legacy status, list and redirect shapes. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';
import { seedJobs } from '../helpers/outbox.js';

for (const { kind, skip } of await engineSets()) {
  describe(`job routes (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    const ids: string[] = [];
    before(async () => {
      engines = await openTestEngines(kind, { maxQueued: 1000, maxRendering: 1000 });
      app = await buildTestApp(engines);
      const tool = readFixture('perfect.osr');
      for (let i = 0; i < 7; i += 1) {
        const res = await submit(app, { address: freshAddress(), replay: tool });
        assert.equal(res.statusCode, 202);
        ids.push(res.json().job_id);
      }
      // Distinct creation times, oldest first, and a spread of statuses.
      for (const [i, id] of ids.entries()) {
        await engines.ctx.db.query(
          `UPDATE render_jobs SET created_at = now() - make_interval(secs => $2) WHERE id = $1`,
          [id, 100 - i],
        );
      }
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'completed', progress = 100, map_title = 'Artist - Song [Hard]',
                video_key = 'videos/' || id || '.mp4', thumbnail_key = 'thumbnails/' || id || '.jpg', log_key = 'logs/' || id || '.log'
          WHERE id = $1`,
        [ids[0]],
      );
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'rendering', progress = 42.5 WHERE id = $1`,
        [ids[1]],
      );
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'failed', error = 'Beatmap not found.' WHERE id = $1`,
        [ids[2]],
      );
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('list: newest first, total, limit/offset pagination', async () => {
      const page1 = (await app.inject('/v1/jobs?limit=3')).json();
      assert.equal(page1.total, 7);
      assert.deepEqual(
        page1.jobs.map((j: { job_id: string }) => j.job_id),
        [ids[6], ids[5], ids[4]],
      );
      const page3 = (await app.inject('/v1/jobs?limit=3&offset=6')).json();
      assert.deepEqual(
        page3.jobs.map((j: { job_id: string }) => j.job_id),
        [ids[0]],
      );
      assert.equal(page3.limit, 3);
      assert.equal(page3.offset, 6);
    });

    test('list: status filter narrows items and total', async () => {
      const res = (await app.inject('/v1/jobs?status=queued')).json();
      assert.equal(res.total, 4);
      assert.ok(res.jobs.every((j: { status: string }) => j.status === 'queued'));
      const done = (await app.inject('/v1/jobs?status=completed')).json();
      assert.deepEqual(
        done.jobs.map((j: { job_id: string }) => j.job_id),
        [ids[0]],
      );
    });

    test('list: bad parameters → 422', async () => {
      assert.equal((await app.inject('/v1/jobs?limit=0')).statusCode, 422);
      assert.equal((await app.inject('/v1/jobs?limit=1000')).statusCode, 422);
      assert.equal((await app.inject('/v1/jobs?status=done')).statusCode, 422);
      assert.equal((await app.inject('/v1/jobs?offset=-1')).statusCode, 422);
      assert.equal((await app.inject('/v1/jobs?offset=99999999999999999999')).statusCode, 422);
      assert.equal((await app.inject('/v1/jobs?limit=abc')).statusCode, 422);
    });

    test('one job: links to its artifacts when completed', async () => {
      const job = (await app.inject(`/v1/jobs/${ids[0]}`)).json();
      assert.equal(job.status, 'completed');
      assert.equal(job.progress, 100);
      assert.equal(job.map_title, 'Artist - Song [Hard]');
      assert.equal(job.links.video, `/v1/artifacts/videos/${ids[0]}.mp4`);
      assert.equal(job.links.thumbnail, `/v1/artifacts/thumbnails/${ids[0]}.jpg`);
      assert.equal(job.links.log, `/v1/artifacts/logs/${ids[0]}.log`);
      const queued = (await app.inject(`/v1/jobs/${ids[5]}`)).json();
      assert.equal(queued.links.video, undefined);
      assert.equal(queued.error, null);
      assert.equal('client_ip' in queued, false);
    });

    test('unknown or malformed id → 404', async () => {
      for (const id of [
        '00000000-0000-4000-8000-000000000000',
        'nope',
        "1' OR '1'='1",
        ids[0]!.replaceAll('-', '').slice(1),
      ]) {
        const res = await app.inject(`/v1/jobs/${encodeURIComponent(id)}`);
        assert.equal(res.statusCode, 404, id);
        assert.equal(res.json().detail, 'Job not found.');
      }
    });

    test('legacy status: dashless id, complete, percent, Unix-float times, no links', async () => {
      const hex = ids[0]!.replaceAll('-', '');
      const res = await app.inject(`/status/${hex}`);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'created_at',
        'error',
        'job_id',
        'last_updated',
        'map_title',
        'percent',
        'skin',
        'status',
      ]);
      assert.equal(body.job_id, hex);
      assert.equal(body.status, 'complete');
      assert.equal(body.percent, 100);
      assert.equal(typeof body.created_at, 'number');
      assert.ok(Math.abs(body.created_at - (Date.now() / 1000 - 100)) < 60);
      assert.ok(!Number.isInteger(body.last_updated) || body.last_updated > 0);
      const rendering = (await app.inject(`/status/${ids[1]!.replaceAll('-', '')}`)).json();
      assert.equal(rendering.status, 'rendering');
      assert.equal(rendering.percent, 42.5);
      const failed = (await app.inject(`/status/${ids[2]!.replaceAll('-', '')}`)).json();
      assert.equal(failed.error, 'Beatmap not found.');
      assert.equal((await app.inject('/status/zzz')).statusCode, 404);
    });

    test('legacy list: a flat array of at most 50, newest first, legacy shape', async () => {
      const body = (await app.inject('/jobs')).json();
      assert.ok(Array.isArray(body));
      assert.equal(body.length, 7);
      assert.equal(body[0].job_id, ids[6]!.replaceAll('-', ''));
      assert.equal(body[6].status, 'complete');
    });

    test('legacy POST /render answers job_id (32 hex), view_url, video_url', async () => {
      const res = await submit(app, {
        address: freshAddress(),
        replay: readFixture('missed.osr'),
        path: '/render',
        fields: { quality: 'ultra' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.match(body.job_id, /^[0-9a-f]{32}$/);
      assert.equal(body.view_url, `/view/${body.job_id}`);
      assert.equal(body.video_url, `/video/${body.job_id}.mp4`);
      const v1 = (await app.inject(`/v1/jobs/${body.job_id}`)).json();
      assert.equal(v1.options.resolution, '4k');
      const other = await submit(app, {
        address: freshAddress(),
        replay: readFixture('missed.osr'),
        path: '/render',
        fields: { quality: 'high' },
      });
      assert.equal(
        (await app.inject(`/v1/jobs/${other.json().job_id}`)).json().options.resolution,
        '1080p',
      );
    });

    test('legacy list stops at the 50 newest; v1 still counts them all', async () => {
      await seedJobs(engines, 52);
      const legacy = (await app.inject('/jobs')).json();
      assert.equal(legacy.length, 50);
      assert.ok(legacy.every((j: { job_id: string }) => /^[0-9a-f]{32}$/.test(j.job_id)));
      const v1 = (await app.inject('/v1/jobs?limit=1')).json();
      assert.ok(v1.total >= 59, `total ${v1.total}`);
      assert.equal(legacy[0].job_id, v1.jobs[0].job_id.replaceAll('-', ''));
    });

    test('legacy redirects point at the artifacts', async () => {
      const hex = ids[0]!.replaceAll('-', '');
      const video = await app.inject(`/video/${hex}.mp4`);
      assert.equal(video.statusCode, 302);
      assert.equal(video.headers.location, `/v1/artifacts/videos/${ids[0]}.mp4`);
      const thumb = await app.inject(`/thumbnail/${hex}.jpg`);
      assert.equal(thumb.headers.location, `/v1/artifacts/thumbnails/${ids[0]}.jpg`);
      const log = await app.inject(`/logs/${hex}`);
      assert.equal(log.headers.location, `/v1/artifacts/logs/${ids[0]}.log`);
    });
  });
}

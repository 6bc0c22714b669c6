/**
 * Job control: DELETE /v1/jobs/{id} by the submitter or an operator (queued jobs are
 * cancelled, finished ones deleted with their artifacts), 410 afterwards on every route
 * that shows a job, and the per-client daily quota.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, openTestEngines, type TestEngines } from '../helpers/harness.js';

let peer = 0;
/** A distinct non-loopback socket peer: its own address, whatever header it sends. */
const freshPeer = () => {
  peer += 1;
  return `198.51.${(peer >> 8) & 255}.${peer & 255}`;
};

for (const { kind, skip } of await engineSets()) {
  describe(`job control (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    const replay = readFixture('perfect.osr');

    // Submitted through a proxy on this machine (its Edge-Connecting-IP is believed); the
    // same client then calls DELETE directly, as a non-loopback peer: no operator.
    const submitFrom = async (address: string) => {
      const res = await submit(app, { address, replay });
      assert.equal(res.statusCode, 202, res.body);
      return res.json().job_id as string;
    };
    const del = (id: string, remoteAddress?: string) =>
      app.inject({
        method: 'DELETE',
        url: `/v1/jobs/${id}`,
        ...(remoteAddress ? { remoteAddress } : {}),
      });
    const complete = (id: string) =>
      engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'completed', progress = 100, finished_at = now(),
                video_key = 'videos/' || id || '.mp4', thumbnail_key = 'thumbnails/' || id || '.jpg',
                log_key = 'logs/' || id || '.log'
          WHERE id = $1`,
        [id],
      );

    before(async () => {
      engines = await openTestEngines(kind, {
        maxQueued: 1000,
        maxRendering: 1000,
        renderRateLimit: 1000,
        dailyRenderQuota: 3,
      });
      app = await buildTestApp(engines);
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('the submitter cancels its queued job: 204, then 410 everywhere, replay gone, slot freed', async () => {
      const me = freshPeer();
      const id = await submitFrom(me);
      await submitFrom(me);
      assert.equal((await submit(app, { address: me, replay })).statusCode, 429);
      assert.ok(await engines.ctx.store.exists(`replays/${id}.osr`));

      const res = await del(id, me);
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      const gone = await app.inject(`/v1/jobs/${id}`);
      assert.equal(gone.statusCode, 410);
      assert.equal(gone.json().detail, 'This job was cancelled and deleted.');
      assert.equal((await app.inject(`/status/${id.replaceAll('-', '')}`)).statusCode, 410);
      const page = await app.inject(`/view/${id}`);
      assert.equal(page.statusCode, 410);
      assert.match(page.body, /cancelled and deleted/);
      assert.equal(await engines.ctx.store.exists(`replays/${id}.osr`), false);
      const listed = (await app.inject('/v1/jobs?limit=100')).json();
      assert.ok(!listed.jobs.some((j: { job_id: string }) => j.job_id === id));
      // A cancelled job is no longer active: the address may submit again.
      await submitFrom(me);
      // Deleting again: already gone.
      const again = await del(id, me);
      assert.equal(again.statusCode, 410);
      assert.equal(again.json().detail, 'This job was cancelled and deleted.');
    });

    test('another client cannot delete a job (403); an operator can', async () => {
      const id = await submitFrom(freshPeer());
      const refused = await del(id, freshPeer());
      assert.equal(refused.statusCode, 403);
      assert.equal(
        refused.json().detail,
        'Only the client that submitted this job, or an operator, can delete it.',
      );
      assert.equal((await app.inject(`/v1/jobs/${id}`)).json().status, 'queued');
      // app.inject's default peer is loopback: an operator while no API keys are set.
      assert.equal((await del(id)).statusCode, 204);
    });

    test('a finished job is deleted with its video, thumbnail, log and replay', async () => {
      const id = await submitFrom(freshPeer());
      await complete(id);
      for (const key of [`videos/${id}.mp4`, `thumbnails/${id}.jpg`, `logs/${id}.log`])
        await engines.ctx.store.put(key, 'x');
      assert.equal((await del(id)).statusCode, 204);
      const gone = await app.inject(`/v1/jobs/${id}`);
      assert.equal(gone.statusCode, 410);
      assert.equal(gone.json().detail, 'This job was deleted.');
      for (const key of [
        `videos/${id}.mp4`,
        `thumbnails/${id}.jpg`,
        `logs/${id}.log`,
        `replays/${id}.osr`,
      ])
        assert.equal(await engines.ctx.store.exists(key), false, key);
      const { rows } = await engines.ctx.db.query<{ status: string; artifacts_purged_at: Date }>(
        'SELECT status, artifacts_purged_at FROM render_jobs WHERE id = $1',
        [id],
      );
      assert.equal(
        rows[0]?.status,
        'completed',
        'a finished job keeps its status in the tombstone',
      );
      assert.ok(rows[0]?.artifacts_purged_at);
    });

    test('unknown or malformed ids → 404', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        const res = await del(id);
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().detail, 'Job not found.');
      }
    });

    test('daily quota: the fourth job in 24 hours is refused (429), deleted jobs still count', async () => {
      const me = freshPeer();
      const first = await submitFrom(me);
      await complete(first);
      const second = await submitFrom(me);
      assert.equal((await del(second, me)).statusCode, 204);
      await submitFrom(me);
      const refused = await submit(app, { address: me, replay });
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().detail, 'Daily render quota exceeded: 3 per day.');
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter > 86_000 && retryAfter <= 86_400, String(retryAfter));
      assert.equal(await engines.ctx.store.exists(`replays/${refused.json().job_id}.osr`), false);
      // The oldest job leaves the 24-hour window: one more is accepted.
      await engines.ctx.db.query(
        `UPDATE render_jobs SET created_at = now() - interval '25 hours' WHERE id = $1`,
        [first],
      );
      await submitFrom(me);
    });
  });
}

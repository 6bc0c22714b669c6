/**
 * Retention with an injected clock: finished jobs lose their artifacts after
 * ARTIFACT_RETENTION_DAYS and answer 410, tombstones are forgotten after as long again
 * (404), a video shared by identical submissions goes with its last job, and a storage
 * failure during removal is retried.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ObjectStore } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { sweepOnce } from '../../src/retention/retention-sweeper.js';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import {
  delegatingStore,
  engineSets,
  freshAddress,
  openTestEngines,
  type TestEngines,
} from '../helpers/harness.js';

const DAY = 86_400_000;

for (const { kind, skip } of await engineSets()) {
  describe(`retention sweeper (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let failDeletes = 0;
    const replay = readFixture('perfect.osr');
    const options = (days: number) => ({ retentionDays: 30, now: () => Date.now() + days * DAY });

    const newJob = async () => {
      const res = await submit(app, { address: freshAddress(), replay });
      assert.equal(res.statusCode, 202, res.body);
      return res.json().job_id as string;
    };
    /** Finishes a job `daysAgo` days before now, with its artifacts (or another job's video) stored. */
    const finish = async (id: string, status: 'completed' | 'failed', videoOf = id) => {
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = $2, finished_at = now(), log_key = 'logs/' || id || '.log',
                video_key = CASE WHEN $2 = 'completed' THEN 'videos/' || $3 || '.mp4' END,
                thumbnail_key = CASE WHEN $2 = 'completed' THEN 'thumbnails/' || $3 || '.jpg' END
          WHERE id = $1`,
        [id, status, videoOf],
      );
      await engines.ctx.store.put(`logs/${id}.log`, 'log');
      if (status === 'completed') {
        await engines.ctx.store.put(`videos/${videoOf}.mp4`, 'video');
        await engines.ctx.store.put(`thumbnails/${videoOf}.jpg`, 'jpg');
      }
    };
    const exists = (key: string) => engines.ctx.store.exists(key);
    const sweep = (days: number) => sweepOnce(engines.ctx.db, engines.ctx.store, options(days));

    before(async () => {
      engines = await openTestEngines(
        kind,
        { maxQueued: 1000, maxRendering: 1000 },
        {
          store: (inner: ObjectStore): ObjectStore =>
            delegatingStore(inner, {
              delete: async (key) => {
                if (failDeletes > 0) {
                  failDeletes -= 1;
                  throw new Error('storage unavailable');
                }
                return inner.delete(key);
              },
            }),
        },
      );
      app = await buildTestApp(engines);
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('finished jobs expire after the retention (410), active ones never; tombstones are forgotten later (404)', async () => {
      const done = await newJob();
      const failed = await newJob();
      const queued = await newJob();
      await finish(done, 'completed');
      await finish(failed, 'failed');

      const early = await sweep(29);
      assert.equal(early.expired, 0);
      assert.equal((await app.inject(`/v1/jobs/${done}`)).statusCode, 200);

      const due = await sweep(31);
      assert.ok(due.expired >= 2);
      const gone = await app.inject(`/v1/jobs/${done}`);
      assert.equal(gone.statusCode, 410);
      assert.equal(
        gone.json().detail,
        'This job has expired: videos and files are kept for 30 days after a render finishes.',
      );
      assert.equal((await app.inject(`/v1/jobs/${failed}`)).statusCode, 410);
      for (const key of [
        `videos/${done}.mp4`,
        `thumbnails/${done}.jpg`,
        `logs/${done}.log`,
        `replays/${done}.osr`,
        `logs/${failed}.log`,
        `replays/${failed}.osr`,
      ])
        assert.equal(await exists(key), false, key);
      const waiting = await app.inject(`/v1/jobs/${queued}`);
      assert.equal(waiting.json().status, 'queued');
      assert.ok(await exists(`replays/${queued}.osr`));

      const forgotten = await sweep(62);
      assert.ok(forgotten.forgotten >= 2);
      assert.equal((await app.inject(`/v1/jobs/${done}`)).statusCode, 404);
      assert.equal((await app.inject(`/v1/jobs/${queued}`)).statusCode, 200);
    });

    test('a video shared by an identical later job stays until that job expires too', async () => {
      const original = await newJob();
      const reuser = await newJob();
      await finish(original, 'completed');
      await finish(reuser, 'completed', original);
      await engines.ctx.db.query(
        `UPDATE render_jobs SET finished_at = now() - interval '10 days' WHERE id = $1`,
        [original],
      );
      await sweep(25);
      assert.equal((await app.inject(`/v1/jobs/${original}`)).statusCode, 410);
      assert.equal(await exists(`logs/${original}.log`), false);
      assert.ok(await exists(`videos/${original}.mp4`), 'still linked by the later job');
      assert.equal(
        (await app.inject(`/v1/jobs/${reuser}`)).json().links.video,
        `/v1/artifacts/videos/${original}.mp4`,
      );
      await sweep(31);
      assert.equal((await app.inject(`/v1/jobs/${reuser}`)).statusCode, 410);
      assert.equal(await exists(`videos/${original}.mp4`), false);
      assert.equal(await exists(`thumbnails/${original}.jpg`), false);
    });

    test('a removal whose storage delete failed is retried by the next sweep', async () => {
      const id = await newJob();
      await finish(id, 'completed');
      failDeletes = 1;
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` })).statusCode, 204);
      const { rows } = await engines.ctx.db.query<{ artifacts_purged_at: Date | null }>(
        'SELECT artifacts_purged_at FROM render_jobs WHERE id = $1',
        [id],
      );
      assert.equal(rows[0]?.artifacts_purged_at, null);
      const retried = await sweep(0.01);
      assert.ok(retried.purgesRetried >= 1);
      for (const key of [`videos/${id}.mp4`, `logs/${id}.log`, `replays/${id}.osr`])
        assert.equal(await exists(key), false, key);
    });
  });
}

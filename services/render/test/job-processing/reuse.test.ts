/**
 * Identical submissions (same replay bytes, skin, options) within the retention reuse the
 * finished video; different options, or a deleted twin, render again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { madeOsuFixturesDir } from '@platform/testing';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';
import {
  startTestJobProcessing,
  waitForJob,
  type TestJobProcessing,
} from '../helpers/job-processing.js';

type Job = {
  status: string;
  error: string | null;
  map_title: string | null;
  links: Record<string, string>;
};

for (const { kind, skip } of await engineSets()) {
  describe(`identical submissions (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let processing: TestJobProcessing;
    const replay = readFixture('perfect.osr');

    /** Submits, waits for the end, and says how the worker ended the task. */
    const render = async (fields: Record<string, string> = {}) => {
      const res = await submit(app, { address: freshAddress(), replay, fields });
      assert.equal(res.statusCode, 202, res.body);
      const id = res.json().job_id as string;
      const job = await waitForJob(
        async () => (await app.inject(`/v1/jobs/${id}`)).json() as Job,
        (j) => j.status === 'completed' || j.status === 'failed',
      );
      assert.equal(job.status, 'completed', job.error ?? '');
      // The worker records its outcome just after writing the job's final state.
      const ended = await waitForJob(
        async () => processing.outcomes.find((o) => o.jobId === id),
        (o) => o !== undefined,
      );
      return { id, job, outcome: ended?.outcome };
    };

    before(async () => {
      engines = await openTestEngines(kind, { maxQueued: 1000, maxRendering: 1000 });
      app = await buildTestApp(engines);
      processing = await startTestJobProcessing(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        worker: { reuseRenders: true },
      });
    });
    after(async () => {
      await processing?.stop();
      await app?.close();
      await engines?.close();
    });

    test('the second identical submission reuses the video; other options render again', async () => {
      const first = await render({ bg_dim: '0.5' });
      assert.equal(first.outcome, 'completed');
      const second = await render({ bg_dim: '50' }); // 50 is read as 0.5: the same options
      assert.equal(second.outcome, 'reused');
      assert.equal(second.job.links.video, first.job.links.video);
      assert.equal(second.job.links.thumbnail, first.job.links.thumbnail);
      assert.equal(second.job.map_title, first.job.map_title);
      assert.match(
        (await engines.ctx.store.get(`logs/${second.id}.log`)).toString(),
        new RegExp(`identical to job ${first.id}`),
      );
      const other = await render({ bg_dim: '0.4' });
      assert.equal(other.outcome, 'completed');
      assert.notEqual(other.job.links.video, first.job.links.video);

      // Deleting the first keeps the shared video (the second links to it) ...
      assert.equal(
        (await app.inject({ method: 'DELETE', url: `/v1/jobs/${first.id}` })).statusCode,
        204,
      );
      assert.ok(await engines.ctx.store.exists(`videos/${first.id}.mp4`));
      // ... deleting the second too removes it, and the next identical one renders anew.
      assert.equal(
        (await app.inject({ method: 'DELETE', url: `/v1/jobs/${second.id}` })).statusCode,
        204,
      );
      assert.equal(await engines.ctx.store.exists(`videos/${first.id}.mp4`), false);
      const third = await render({ bg_dim: '0.5' });
      assert.equal(third.outcome, 'completed');
      assert.equal(third.job.links.video, `/v1/artifacts/videos/${third.id}.mp4`);
    });
  });
}

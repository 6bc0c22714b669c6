/**
 * Cancelling a running render with DELETE /v1/jobs/{id}: the worker stops at its next
 * heartbeat or progress write, removes its temp folder, and nothing of the job stays in
 * storage (the log it kept uploading included).
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

for (const { kind, skip } of await engineSets()) {
  describe(`cancel a running render (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let processing: TestJobProcessing;
    const heartbeatMs = 500;

    before(async () => {
      engines = await openTestEngines(kind, { maxQueued: 1000, maxRendering: 1000 });
      app = await buildTestApp(engines);
      // Large frames, so the render lasts long enough to be cancelled midway.
      processing = await startTestJobProcessing(engines, {
        beatmapDirs: [madeOsuFixturesDir()],
        worker: { width: 1280, height: 720, fps: 60, heartbeatMs },
      });
    });
    after(async () => {
      await processing?.stop();
      await app?.close();
      await engines?.close();
    });

    test('DELETE stops the worker, removes its temp folder and every artifact', async () => {
      const id = (
        await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') })
      ).json().job_id as string;
      await waitForJob(
        async () => (await app.inject(`/v1/jobs/${id}`)).json(),
        (j) => j.status === 'rendering' && j.progress > 0,
      );
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` })).statusCode, 204);
      // The worker ends the task: bounded by a heartbeat (progress writes are more frequent).
      const ended = await waitForJob(
        async () => processing.outcomes.find((o) => o.jobId === id),
        (o) => o !== undefined,
        heartbeatMs * 4 + 10_000,
      );
      assert.equal(ended?.outcome, 'failed');
      assert.deepEqual(await processing.leftovers(), []);
      for (const key of [
        `replays/${id}.osr`,
        `logs/${id}.log`,
        `videos/${id}.mp4`,
        `thumbnails/${id}.jpg`,
      ])
        assert.equal(await engines.ctx.store.exists(key), false, key);
      const gone = await app.inject(`/v1/jobs/${id}`);
      assert.equal(gone.statusCode, 410);
      assert.equal(gone.json().detail, 'This job was cancelled and deleted.');
    });
  });
}

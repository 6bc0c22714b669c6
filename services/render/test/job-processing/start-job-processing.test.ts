/**
 * `startJobProcessing` from the environment: without `BEATMAPS_DIR`, the worker finds beatmaps
 * in `DATA_DIR/render/beatmaps`, as the README says.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { madeOsuFixture } from '@platform/testing';
import { renderEnvSchema } from '../../src/config.js';
import { startJobProcessing } from '../../src/job-processing.js';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { freshAddress, openTestEngines, quietLogger } from '../helpers/harness.js';
import { testQueue, waitForJob } from '../helpers/job-processing.js';

test('without BEATMAPS_DIR, beatmaps dropped in DATA_DIR/render/beatmaps are found', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'render-start-processing-'));
  const engines = await openTestEngines('embedded');
  const queue = testQueue(engines);
  const app = await buildTestApp(engines);
  let processing: { stop(): Promise<void> } | undefined;
  try {
    const library = join(dataDir, 'render', 'beatmaps');
    await mkdir(library, { recursive: true });
    await copyFile(madeOsuFixture('made.osu'), join(library, 'made.osu'));
    const env = renderEnvSchema.parse({
      DATA_DIR: dataDir,
      RUN_REAPER: 'false',
      RENDER_WIDTH: '160',
      RENDER_HEIGHT: '90',
    });
    processing = await startJobProcessing({ ...engines.ctx, logger: quietLogger }, env, queue);
    const res = await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') });
    assert.equal(res.statusCode, 202);
    const id = res.json().job_id as string;
    // The map title is written once the beatmap is found, before the render itself.
    const job = await waitForJob(
      async () =>
        (await app.inject(`/v1/jobs/${id}`)).json() as {
          status: string;
          map_title: string | null;
          error: string | null;
        },
      (j) => j.map_title !== null || j.status === 'failed',
    );
    assert.equal(job.error, null);
    assert.match(job.map_title ?? '', /Made For Tests/);
  } finally {
    await processing?.stop();
    await queue.close();
    await app.close();
    await engines.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

/** Kill-test child: a render worker with the real renderer, until killed. */
import { createBeatmapResolver } from '../../../src/beatmaps/beatmap-resolver.js';
import { osuRenderer } from '../../../src/renderer/renderer.js';
import { startRenderWorker } from '../../../src/worker/render-worker.js';
import { childEngines } from './child-engines.js';

const { db, queue, store, logger } = await childEngines();
startRenderWorker(
  {
    db,
    store,
    logger,
    renderer: osuRenderer,
    beatmaps: createBeatmapResolver({ dirs: [process.env.BEATMAPS_DIR!], store }),
    settings: {
      workerId: `child-${process.pid}`,
      renderTimeoutMs: 120_000,
      logUploadMs: 200,
      heartbeatMs: 200,
      width: 1280,
      height: 720,
      fps: 60,
      tempRoot: process.env.TEMP_ROOT,
    },
  },
  queue,
  { concurrency: 1 },
);
process.stdout.write('ready\n');

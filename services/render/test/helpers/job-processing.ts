/** Starts dispatcher + queue + worker on test engines, with the real renderer by default. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOutboundGuard } from '@platform/core';
import { createBeatmapResolver } from '../../src/beatmaps/beatmap-resolver.js';
import { createDispatcher, type Dispatcher } from '../../src/dispatcher/dispatcher.js';
import { BullmqTaskQueue } from '../../src/queue/bullmq/bullmq-task-queue.js';
import { createTaskQueue } from '../../src/queue/create-task-queue.js';
import type { TaskQueue } from '../../src/queue/task-queue.js';
import { osuRenderer, type Renderer } from '../../src/renderer/renderer.js';
import { startRenderWorker, type RenderWorker } from '../../src/worker/render-worker.js';
import type { TaskOutcome, WorkerSettings } from '../../src/worker/run-render-job.js';
import { quietLogger, type TestEngines } from './harness.js';

/** The test workers' render timeout: a job is completed or failed within it once taken. */
export const TEST_RENDER_TIMEOUT_MS = 60_000;

export interface TestJobProcessing {
  queue: TaskQueue;
  dispatcher: Dispatcher;
  worker: RenderWorker | undefined;
  tempRoot: string;
  /** What each task ended with, in order (skipped tasks included). */
  outcomes: { jobId: string; outcome: TaskOutcome }[];
  /** Names left in the workers' temp root (should be none between jobs). */
  leftovers(): Promise<string[]>;
  stop(): Promise<void>;
}

export interface TestJobProcessingOptions {
  renderer?: Renderer;
  beatmapDirs?: string[];
  mirrorUrl?: string;
  worker?: Partial<WorkerSettings>;
  startWorker?: boolean;
}

export function testQueue(engines: TestEngines): TaskQueue {
  return createTaskQueue({
    redisUrl: engines.redisUrl,
    prefix: engines.keyPrefix.replace(/:$/, ''),
    logger: quietLogger,
  });
}

export async function startTestJobProcessing(
  engines: TestEngines,
  options: TestJobProcessingOptions = {},
): Promise<TestJobProcessing> {
  const { ctx } = engines;
  const queue = testQueue(engines);
  const tempRoot = await mkdtemp(join(tmpdir(), 'render-worker-test-'));
  const dispatcher = createDispatcher(ctx.db, queue, quietLogger, { pollMs: 200 });
  await dispatcher.start();
  const outcomes: TestJobProcessing['outcomes'] = [];
  const worker =
    options.startWorker === false
      ? undefined
      : startRenderWorker(
          {
            db: ctx.db,
            store: ctx.store,
            logger: quietLogger,
            renderer: options.renderer ?? osuRenderer,
            beatmaps: createBeatmapResolver({
              dirs: options.beatmapDirs,
              mirrorUrl: options.mirrorUrl,
              // The test mirrors are loopback servers, allowed explicitly.
              outbound: createOutboundGuard({ allowed: ['127.0.0.1'] }),
              store: ctx.store,
            }),
            settings: {
              workerId: 'test-worker',
              renderTimeoutMs: TEST_RENDER_TIMEOUT_MS,
              logUploadMs: 200,
              heartbeatMs: 500,
              width: 320,
              height: 180,
              fps: 24,
              tempRoot,
              // Most tests render the same fixture again and again: reuse only when asked.
              reuseRenders: false,
              ...options.worker,
            },
          },
          queue,
          { concurrency: 1, onOutcome: (jobId, outcome) => outcomes.push({ jobId, outcome }) },
        );
  return {
    queue,
    dispatcher,
    worker,
    tempRoot,
    outcomes,
    leftovers: () => readdir(tempRoot),
    async stop() {
      await dispatcher.stop();
      await worker?.stop();
      if (queue instanceof BullmqTaskQueue) await queue.obliterate().catch(() => undefined);
      await queue.close();
      await rm(tempRoot, { recursive: true, force: true });
    },
  };
}

/** Polls a job until `done` says so or the time runs out. */
export async function waitForJob<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

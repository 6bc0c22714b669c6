/**
 * Starts the job processing this process runs (dispatcher, worker, reaper, retention
 * sweeper) from the env: everything that moves a job after admission.
 */
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { outboundGuardFromEnv, waitForDependency } from '@platform/core';
import { createBeatmapResolver } from './beatmaps/beatmap-resolver.js';
import type { RenderEnv } from './config.js';
import type { RenderContext } from './context.js';
import { createDispatcher } from './dispatcher/dispatcher.js';
import type { RenderMetrics } from './metrics.js';
import type { TaskQueue } from './queue/task-queue.js';
import { redispatchAfterRestart, startReaper } from './reaper/reaper.js';
import { startRetentionSweeper } from './retention/retention-sweeper.js';
import { createOsuRenderer } from './renderer/renderer.js';
import { DEFAULT_SKIN_LIMITS } from './skins/skin-archive.js';
import { startRenderWorker } from './worker/render-worker.js';

export async function startJobProcessing(
  ctx: RenderContext,
  env: RenderEnv,
  queue: TaskQueue,
  metrics?: RenderMetrics,
): Promise<{ stop(): Promise<void> }> {
  const stops: (() => Promise<void>)[] = [];
  // Without BEATMAPS_DIR, a folder under DATA_DIR is the library: drop .osu/.osz files there.
  const beatmapDirs = env.BEATMAPS_DIR ?? [join(env.DATA_DIR, 'render', 'beatmaps')];
  if (env.RUN_WORKER) {
    if (!env.BEATMAPS_DIR) await mkdir(beatmapDirs[0]!, { recursive: true });
    const worker = startRenderWorker(
      {
        db: ctx.db,
        store: ctx.store,
        logger: ctx.logger,
        renderer: createOsuRenderer({ ffmpegPath: env.FFMPEG_PATH, ffprobePath: env.FFPROBE_PATH }),
        beatmaps: createBeatmapResolver({
          dirs: beatmapDirs,
          mirrorUrl: env.BEATMAP_MIRROR_URL,
          outbound: outboundGuardFromEnv(env),
          store: ctx.store,
        }),
        settings: {
          workerId: `${hostname()}-${process.pid}`,
          renderTimeoutMs: env.RENDER_TIMEOUT_SECONDS * 1000,
          logUploadMs: 3000,
          heartbeatMs: 5000,
          skinLimits: {
            ...DEFAULT_SKIN_LIMITS,
            maxUncompressedBytes: env.MAX_SKIN_UNCOMPRESSED_MB * 1024 * 1024,
          },
          retentionDays: env.ARTIFACT_RETENTION_DAYS,
          reuseRenders: env.REUSE_RENDERS,
          width: env.RENDER_WIDTH,
          height: env.RENDER_HEIGHT,
        },
      },
      queue,
      {
        concurrency: env.WORKER_CONCURRENCY,
        onOutcome: (_jobId, outcome, seconds) => {
          if (outcome !== 'skipped') metrics?.renders.observe({ outcome }, seconds);
        },
      },
    );
    stops.push(() => worker.stop());
  }
  if (!queue.durable) {
    // The database may go again just after the migrations: waited for, as they were.
    const recovered = await waitForDependency(
      'dispatching again the jobs queued before the restart',
      () => redispatchAfterRestart(ctx.db),
      { logger: ctx.logger },
    );
    if (recovered > 0) {
      metrics?.reaped.inc({ action: 'redispatched_lost' }, recovered);
      ctx.logger.info({ recovered }, 'queued jobs from before the restart dispatched again');
    }
  }
  if (env.RUN_DISPATCHER) {
    const dispatcher = createDispatcher(ctx.db, queue, ctx.logger);
    await waitForDependency('listening for new jobs', () => dispatcher.start(), {
      logger: ctx.logger,
    });
    stops.unshift(() => dispatcher.stop());
  }
  if (env.RUN_REAPER) {
    const reaper = startReaper(ctx.db, queue, ctx.logger, {
      stuckSeconds: env.STUCK_JOB_SECONDS,
      redispatchAfterSeconds: env.REDISPATCH_AFTER_SECONDS,
      maxDispatches: env.MAX_DISPATCHES,
      // a short STUCK_JOB_SECONDS is looked at often enough to mean what it says
      intervalMs: Math.min(30_000, env.STUCK_JOB_SECONDS * 500),
      onReaped: (result) => {
        metrics?.reaped.inc({ action: 'requeued_stuck' }, result.requeuedStuck);
        metrics?.reaped.inc({ action: 'failed_stuck' }, result.failedStuck);
        metrics?.reaped.inc({ action: 'redispatched_lost' }, result.redispatchedLost);
      },
    });
    stops.unshift(() => reaper.stop());
    const sweeper = startRetentionSweeper(ctx.db, ctx.store, ctx.logger, {
      retentionDays: env.ARTIFACT_RETENTION_DAYS,
    });
    stops.unshift(() => sweeper.stop());
  }
  return {
    async stop() {
      for (const stop of stops) await stop();
    },
  };
}

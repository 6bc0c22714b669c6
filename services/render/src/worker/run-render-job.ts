/**
 * One render task: `queued → downloading → rendering → completed`, or `failed` with a
 * reason. Claims the job (a task for a job already taken is skipped), fetches the replay,
 * beatmap and skin, renders with a timeout, reports progress 0–100 and a heartbeat,
 * uploads the log every few seconds, stores video, thumbnail and log, and removes its
 * temp folder whatever happens.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isDatabaseUnavailable,
  isDiskFailure,
  type Logger,
  type ObjectStore,
  type SqlDatabase,
} from '@platform/core';
import { parseBeatmap } from '@platform/osu';
import { BeatmapNotFoundError, type BeatmapResolver } from '../beatmaps/beatmap-resolver.js';
import { DEFAULT_SKIN } from '../skins/skin-name.js';
import { claimJob, getJob, requeueJob, updateRunningJob, type JobRow } from '../jobs/job-store.js';
import { purgeArtifacts } from '../retention/job-removal.js';
import { reuseFinishedRender } from '../reuse/reuse-render.js';
import { artifactKeys } from '../jobs/job-view.js';
import type { Renderer } from '../renderer/renderer.js';
import { extractStoredSkin } from '../skins/skin-library.js';
import { DEFAULT_SKIN_LIMITS, type SkinArchiveLimits } from '../skins/skin-archive.js';
import { createJobLog } from './job-log.js';
import { JOB_TEMP_PREFIX } from './temp-folders.js';

export interface WorkerSettings {
  workerId: string;
  /** @defaultValue 1800000 */
  renderTimeoutMs: number;
  /** @defaultValue 3000 */
  logUploadMs: number;
  /** @defaultValue 5000 */
  heartbeatMs: number;
  /** Fixed output size instead of the resolution's (small test renders). @defaultValue undefined */
  width?: number | undefined;
  height?: number | undefined;
  fps?: number | undefined;
  /** Archive checks of a stored skin, `MAX_SKIN_UNCOMPRESSED_MB` included. @defaultValue `DEFAULT_SKIN_LIMITS` */
  skinLimits?: SkinArchiveLimits | undefined;
  /** Complete identical submissions from a finished twin instead of rendering. @defaultValue true */
  reuseRenders?: boolean | undefined;
  /** Days a finished render may be reused by an identical submission. @defaultValue 30 */
  retentionDays?: number | undefined;
  /** Where temp folders go. @defaultValue the OS temp folder */
  tempRoot?: string | undefined;
}

export interface WorkerDeps {
  db: SqlDatabase;
  store: ObjectStore;
  logger: Logger;
  renderer: Renderer;
  beatmaps: BeatmapResolver;
  settings: WorkerSettings;
  /** Aborted when the worker shuts down: a running job goes back to the queue. */
  shutdown?: AbortSignal;
}

class WorkerShutdown extends Error {
  constructor() {
    super('The worker shut down during the job.');
  }
}

/** The job is no longer this worker's: the reaper failed it, or it was cancelled. */
class JobTakenAway extends Error {
  constructor() {
    super('The job was taken away from this worker (reaped or cancelled).');
  }
}

class SkinMissingError extends Error {
  constructor(name: string) {
    super(`The skin "${name}" is no longer stored.`);
  }
}

export type TaskOutcome = 'skipped' | 'completed' | 'reused' | 'failed' | 'requeued';

export async function runRenderJob(deps: WorkerDeps, jobId: string): Promise<TaskOutcome> {
  const { db, store, settings } = deps;
  const job = await claimWhenReachable(deps, jobId);
  if (!job) return 'skipped';
  // Each claim is logged, so a job rendered by two workers at once can be found (chaos).
  deps.logger.info({ jobId, workerId: settings.workerId }, 'job claimed');
  const twin =
    settings.reuseRenders !== false
      ? await reuseFinishedRender(
          { db, store, workerId: settings.workerId, retentionDays: settings.retentionDays ?? 30 },
          job,
        )
      : undefined;
  if (twin) {
    deps.logger.info({ jobId, twin }, 'identical render reused');
    return 'reused';
  }
  const keys = artifactKeys(job.id);
  const log = createJobLog(store, keys.log, settings.logUploadMs, deps.logger);
  const dir = await mkdtemp(join(settings.tempRoot ?? tmpdir(), JOB_TEMP_PREFIX));
  const abort = new AbortController();
  // Every write that finds the job gone stops the render (heartbeat, progress).
  const stillMine = (mine: boolean) => {
    if (!mine && !abort.signal.aborted) abort.abort(new JobTakenAway());
  };
  const heartbeat = setInterval(() => {
    updateRunningJob(db, job.id, settings.workerId, {})
      .then(stillMine)
      .catch((error) => deps.logger.warn({ err: error, jobId }, 'heartbeat failed'));
  }, settings.heartbeatMs);
  heartbeat.unref();
  const timeout = setTimeout(
    () =>
      abort.abort(
        new Error(
          `Render timed out after ${Number((settings.renderTimeoutMs / 1000).toFixed(2))} seconds.`,
        ),
      ),
    settings.renderTimeoutMs,
  );
  timeout.unref();
  const onShutdown = () => abort.abort(new WorkerShutdown());
  if (deps.shutdown?.aborted) onShutdown();
  deps.shutdown?.addEventListener('abort', onShutdown, { once: true });
  // The work, with every resource released (temp folder included) before the job's
  // final state is written, so a finished job never has a folder left behind.
  let failure: { error: unknown } | undefined;
  try {
    log.line(`job ${job.id} taken by ${settings.workerId}`);
    await updateRunningJob(db, job.id, settings.workerId, { logKey: keys.log });
    await log.flush();
    await render(deps, job, dir, log.line, abort.signal, keys, stillMine);
  } catch (error) {
    failure = { error };
  } finally {
    deps.shutdown?.removeEventListener('abort', onShutdown);
    clearInterval(heartbeat);
    clearTimeout(timeout);
    await rm(dir, { recursive: true, force: true });
  }

  if (!failure) {
    log.line('completed');
    await log.close();
    const mine = await updateRunningJob(db, job.id, settings.workerId, {
      status: 'completed',
      progress: 100,
      videoKey: keys.video,
      thumbnailKey: keys.thumbnail,
    });
    if (mine) {
      deps.logger.info({ jobId }, 'render completed');
      return 'completed';
    }
    await cleanUpIfRemoved(deps, job.id);
    return 'failed';
  }
  if (abort.signal.reason instanceof WorkerShutdown) {
    log.line('the worker is shutting down: the job goes back to the queue');
    await log.close();
    if (await requeueJob(db, job.id, settings.workerId).catch(() => false)) return 'requeued';
  }
  const reason = failureReason(failure.error, abort.signal, dir);
  log.line(`failed: ${reason}`);
  await log.close();
  await updateRunningJob(db, job.id, settings.workerId, { status: 'failed', error: reason }).catch(
    () => undefined,
  );
  if (abort.signal.reason instanceof JobTakenAway) {
    await cleanUpIfRemoved(deps, job.id);
    deps.logger.info({ jobId }, 'render stopped: the job was taken away (cancelled or reaped)');
  } else deps.logger.warn({ err: failure.error, jobId }, 'render failed');
  return 'failed';
}

/** The longest wait between two claims of a job while the database cannot be reached. */
const CLAIM_RETRY_MAX_MS = 5000;

/**
 * Claims the job, waiting out a database that cannot be reached or written (retried with
 * a growing delay) instead of failing the task: a failed task leaves its job to the
 * reaper's `REDISPATCH_AFTER_SECONDS`, and a worker failing every task at once would
 * empty the whole queue in a moment of outage. Gives up (throws) when the worker shuts
 * down; any other error is thrown at once.
 */
async function claimWhenReachable(deps: WorkerDeps, jobId: string): Promise<JobRow | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await claimJob(deps.db, jobId, deps.settings.workerId);
    } catch (error) {
      if (!(isDatabaseUnavailable(error) || isDiskFailure(error)) || deps.shutdown?.aborted)
        throw error;
      if (attempt === 1)
        deps.logger.warn(
          { err: error, jobId },
          'claim failed: the database is unavailable, retrying',
        );
      const delay = Math.min(CLAIM_RETRY_MAX_MS, 100 * 2 ** attempt);
      await sleep(delay, undefined, deps.shutdown ? { signal: deps.shutdown } : {}).catch(
        () => undefined,
      );
    }
  }
}

/**
 * A job cancelled while this worker ran it: the log, video or thumbnail it uploaded after
 * the removal are deleted again, so nothing of a removed job stays in storage.
 */
async function cleanUpIfRemoved(deps: WorkerDeps, jobId: string): Promise<void> {
  const row = await getJob(deps.db, jobId).catch(() => undefined);
  if (row?.removal) await purgeArtifacts(deps.db, deps.store, row, deps.logger);
}

async function render(
  deps: WorkerDeps,
  job: JobRow,
  dir: string,
  line: (text: string) => void,
  signal: AbortSignal,
  keys: ReturnType<typeof artifactKeys>,
  stillMine: (mine: boolean) => void,
): Promise<void> {
  const { db, store, settings } = deps;
  const replay = await store.get(job.replay_key);
  line(`replay ${job.replay_key} (${replay.length} bytes)`);
  const beatmap = await deps.beatmaps.resolve(job.beatmap_md5, dir);
  line(`beatmap ${job.beatmap_md5} found (${beatmap.source})`);
  const meta = parseBeatmap(await readFile(beatmap.osuPath, 'utf8')).metadata;
  const mapTitle = `${meta.artist} - ${meta.title} [${meta.version}]`;

  let skinDir: string | undefined;
  if (job.skin !== DEFAULT_SKIN) {
    const target = join(dir, 'skin');
    await mkdir(target);
    if (
      !(await extractStoredSkin(
        store,
        job.skin,
        target,
        settings.skinLimits ?? DEFAULT_SKIN_LIMITS,
      ))
    )
      throw new SkinMissingError(job.skin);
    skinDir = target;
  }
  signal.throwIfAborted();
  stillMine(
    await updateRunningJob(db, job.id, settings.workerId, {
      status: 'rendering',
      progress: 0,
      mapTitle,
    }),
  );
  signal.throwIfAborted();
  line(`rendering ${mapTitle} with skin ${skinDir ? job.skin : DEFAULT_SKIN}`);

  let lastWrite = 0;
  let lastPercent = 0;
  let writing: Promise<unknown> = Promise.resolve();
  const onProgress = (percent: number) => {
    const value = Math.max(lastPercent, Math.min(99.9, Math.round(percent * 10) / 10));
    const now = Date.now();
    if (now - lastWrite < 500 || value === lastPercent) return;
    lastWrite = now;
    lastPercent = value;
    writing = writing
      .then(() => updateRunningJob(db, job.id, settings.workerId, { progress: value }))
      .then(stillMine)
      .catch(() => undefined);
  };
  const videoPath = join(dir, 'video.mp4');
  const thumbnailPath = join(dir, 'thumbnail.jpg');
  const o = job.options;
  const result = await deps.renderer({
    replay: new Uint8Array(replay.buffer, replay.byteOffset, replay.length),
    beatmapPath: beatmap.osuPath,
    ...(skinDir ? { skinDir } : {}),
    outputVideoPath: videoPath,
    outputThumbnailPath: thumbnailPath,
    options: {
      ...o,
      ...(settings.width ? { width: settings.width } : {}),
      ...(settings.height ? { height: settings.height } : {}),
      ...(settings.fps ? { fps: settings.fps } : {}),
    },
    onProgress,
    log: line,
    signal,
  });
  await writing;
  signal.throwIfAborted();
  line(
    `rendered ${result.frames} frames, ${result.durationSeconds.toFixed(2)} s at ${result.width}x${result.height}`,
  );
  await store.put(keys.video, await readFile(videoPath), { contentType: 'video/mp4' });
  await store.put(keys.thumbnail, await readFile(thumbnailPath), { contentType: 'image/jpeg' });
}

function failureReason(error: unknown, signal: AbortSignal, dir: string): string {
  if (signal.aborted && signal.reason instanceof Error) return signal.reason.message;
  if (error instanceof BeatmapNotFoundError || error instanceof SkinMissingError)
    return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return `Render failed: ${message.replaceAll(dir, '<tmp>')}`.slice(0, 1000);
}

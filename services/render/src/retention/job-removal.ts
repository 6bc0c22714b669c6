/**
 * Removing a job: its row becomes a tombstone (`deleted_at`, `removal`) so the job answers
 * 410 and still counts towards its client's daily quota, and its artifacts are deleted
 * from storage. An active job is cancelled on the way (status `failed`): its worker sees
 * the job is no longer its own at the next heartbeat or progress write, stops, and
 * removes its temp folder. A video shared by identical submissions is deleted with the
 * last live job that links to it.
 */
import type { Logger, ObjectStore, SqlDatabase, SqlExecutor } from '@platform/core';
import type { JobRemoval, JobRow } from '../jobs/job-store.js';
import { forgetFinishedJobs } from '../jobs/finished-job-cache.js';
import { artifactKeys } from '../jobs/job-view.js';

export const CANCELLED_ERROR = 'The job was cancelled.';

/**
 * Turns a live job into a tombstone at `at`; undefined when it is unknown or already
 * removed. `removal` is `deleted` or `expired`; a job still active becomes `cancelled`.
 */
export async function markRemoved(
  db: SqlExecutor,
  id: string,
  removal: Exclude<JobRemoval, 'cancelled'>,
  at: Date,
): Promise<JobRow | undefined> {
  forgetFinishedJobs();
  // In SET, `status` is the value before this update.
  const { rows } = await db.query<JobRow>(
    `UPDATE render_jobs
        SET removal = CASE WHEN status IN ('queued', 'downloading', 'rendering') THEN 'cancelled' ELSE $2 END,
            error = CASE WHEN status IN ('queued', 'downloading', 'rendering') THEN $4 ELSE error END,
            status = CASE WHEN status IN ('queued', 'downloading', 'rendering') THEN 'failed' ELSE status END,
            finished_at = COALESCE(finished_at, $3::timestamptz),
            deleted_at = $3::timestamptz, updated_at = $3::timestamptz
      WHERE id = $1 AND deleted_at IS NULL
      RETURNING *`,
    [id, removal, at.toISOString(), CANCELLED_ERROR],
  );
  return rows[0];
}

/** Whether a live job still links to this video (identical submissions share one). */
async function videoInUse(db: SqlExecutor, videoKey: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM render_jobs WHERE video_key = $1 AND deleted_at IS NULL LIMIT 1',
    [videoKey],
  );
  return rows.length > 0;
}

/** The storage keys a tombstone leaves behind: its own, and a video nobody links to any more. */
export async function keysToPurge(db: SqlExecutor, job: JobRow): Promise<string[]> {
  const own = artifactKeys(job.id);
  const keys = [job.replay_key, own.log];
  if (!job.video_key) keys.push(own.video, own.thumbnail);
  else if (!(await videoInUse(db, job.video_key)))
    keys.push(job.video_key, job.thumbnail_key ?? own.thumbnail);
  return keys;
}

/** Deletes a tombstone's artifacts and notes it; false (kept for a retry) when storage failed. */
export async function purgeArtifacts(
  db: SqlDatabase,
  store: ObjectStore,
  job: JobRow,
  logger?: Logger,
): Promise<boolean> {
  try {
    const keys = await keysToPurge(db, job);
    await Promise.all(keys.map((key) => store.delete(key)));
    await db.query('UPDATE render_jobs SET artifacts_purged_at = now() WHERE id = $1', [job.id]);
    return true;
  } catch (error) {
    logger?.warn({ err: error, jobId: job.id }, 'artifact removal failed; retried by the sweeper');
    return false;
  }
}

/** Tombstones the job and deletes its artifacts; the tombstone, or undefined when there was no live job. */
export async function removeJob(
  db: SqlDatabase,
  store: ObjectStore,
  id: string,
  removal: Exclude<JobRemoval, 'cancelled'>,
  at: Date,
  logger?: Logger,
): Promise<JobRow | undefined> {
  const job = await markRemoved(db, id, removal, at);
  if (job) await purgeArtifacts(db, store, job, logger);
  return job;
}

/**
 * Identical submissions (same replay bytes, skin and options) share one video: a worker
 * that takes a job whose twin finished within the retention completes it at once with the
 * twin's video and thumbnail instead of rendering again. The twin is read `FOR SHARE`, so
 * a concurrent removal either sees the new link (and keeps the video) or wins first (and
 * the job is rendered normally).
 */
import type { ObjectStore, SqlDatabase } from '@platform/core';
import { updateRunningJob, type JobRow } from '../jobs/job-store.js';
import { artifactKeys } from '../jobs/job-view.js';

export interface ReuseDeps {
  db: SqlDatabase;
  store: ObjectStore;
  workerId: string;
  retentionDays: number;
}

/** Completes `job` from a finished twin; the twin's id, or undefined when there is none. */
export async function reuseFinishedRender(
  deps: ReuseDeps,
  job: JobRow,
): Promise<string | undefined> {
  if (!job.fingerprint) return undefined;
  const fingerprint = job.fingerprint;
  const twinId = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<JobRow>(
      `SELECT * FROM render_jobs
        WHERE fingerprint = $1 AND status = 'completed' AND deleted_at IS NULL AND id <> $2
          AND video_key IS NOT NULL AND finished_at > now() - make_interval(days => $3)
        ORDER BY finished_at DESC LIMIT 1
        FOR SHARE`,
      [fingerprint, job.id, deps.retentionDays],
    );
    const twin = rows[0];
    if (!twin?.video_key || !(await deps.store.exists(twin.video_key))) return undefined;
    const done = await updateRunningJob(tx, job.id, deps.workerId, {
      status: 'completed',
      progress: 100,
      ...(twin.map_title ? { mapTitle: twin.map_title } : {}),
      videoKey: twin.video_key,
      ...(twin.thumbnail_key ? { thumbnailKey: twin.thumbnail_key } : {}),
      logKey: artifactKeys(job.id).log,
    });
    return done ? twin.id : undefined;
  });
  if (twinId) {
    const line = `[${new Date().toISOString()}] identical to job ${twinId} (same replay, skin and options): its video is reused, nothing rendered\n`;
    await deps.store.put(artifactKeys(job.id).log, line, {
      contentType: 'text/plain; charset=utf-8',
    });
  }
  return twinId;
}

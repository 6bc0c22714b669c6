/**
 * Applies a remote worker's report to its job. Allowed moves: queued or downloading to
 * downloading, rendering, completed or failed; rendering to rendering (progress),
 * completed or failed. A finished job accepts nothing (409). `completed` requires the
 * video, thumbnail and log to be in storage under the job's keys already.
 */
import type { ObjectStore, SqlDatabase } from '@platform/core';
import { renderErrors } from '../errors.js';
import type { JobRow, JobStatus } from '../jobs/job-store.js';
import { artifactKeys } from '../jobs/job-view.js';

export interface WorkerReport {
  worker_id: string;
  status: Exclude<JobStatus, 'queued'>;
  progress?: number;
  map_title?: string;
  error?: string;
}

const FROM: Record<WorkerReport['status'], JobStatus[]> = {
  downloading: ['queued', 'downloading'],
  rendering: ['queued', 'downloading', 'rendering'],
  completed: ['queued', 'downloading', 'rendering'],
  failed: ['queued', 'downloading', 'rendering'],
};

export async function applyWorkerReport(
  db: SqlDatabase,
  store: ObjectStore,
  jobId: string,
  report: WorkerReport,
): Promise<JobRow> {
  const keys = artifactKeys(jobId);
  const completed = report.status === 'completed';
  if (completed) {
    const present = await Promise.all(
      [keys.video, keys.thumbnail, keys.log].map((k) => store.exists(k)),
    );
    if (present.includes(false)) {
      throw renderErrors.CALLBACK_CONFLICT({
        detail: 'A completed job needs its video, thumbnail and log uploaded first.',
      });
    }
  }
  const terminal = completed || report.status === 'failed';
  const progress = completed ? 100 : report.progress;
  const { rows } = await db.query<JobRow>(
    `UPDATE render_jobs
        SET status = $2,
            progress = COALESCE($3, progress),
            map_title = COALESCE($4, map_title),
            error = CASE WHEN $2 = 'failed' THEN COALESCE($5, 'The remote worker reported a failure.') ELSE error END,
            worker_id = $6,
            video_key = CASE WHEN $7::boolean THEN $8 ELSE video_key END,
            thumbnail_key = CASE WHEN $7::boolean THEN $9 ELSE thumbnail_key END,
            log_key = COALESCE(log_key, $10),
            started_at = COALESCE(started_at, now()),
            finished_at = CASE WHEN $11::boolean THEN now() ELSE finished_at END,
            heartbeat_at = now(), updated_at = now()
      WHERE id = $1 AND status = ANY($12::text[])
      RETURNING *`,
    [
      jobId,
      report.status,
      progress ?? null,
      report.map_title ?? null,
      report.error ?? null,
      report.worker_id,
      completed,
      keys.video,
      keys.thumbnail,
      keys.log,
      terminal,
      FROM[report.status],
    ],
  );
  if (!rows[0]) throw renderErrors.CALLBACK_CONFLICT();
  return rows[0];
}

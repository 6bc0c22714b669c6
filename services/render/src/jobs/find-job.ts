/** The job a route names, as every route that takes a job id answers it. */
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import { getJob, type JobRow } from './job-store.js';
import { goneDetail, parseJobId } from './job-view.js';

/**
 * The job of a raw (dashed or legacy) id: 404 when unknown, 410 when deleted or expired.
 * Finished jobs come from the process's cache when they are there.
 */
export async function findJob(ctx: RenderContext, rawId: string): Promise<JobRow> {
  const id = parseJobId(rawId);
  const cached = id ? ctx.finishedJobs.get(id) : undefined;
  if (cached) return cached;
  const job = id ? await getJob(ctx.db, id) : undefined;
  if (!job) throw renderErrors.JOB_NOT_FOUND();
  ctx.finishedJobs.offer(job);
  if (job.removal)
    throw renderErrors.JOB_GONE({
      detail: goneDetail(job.removal, ctx.settings.artifactRetentionDays),
    });
  return job;
}

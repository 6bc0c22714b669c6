/** The job a route names, as every route that takes a job id answers it. */
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import type { JobRow } from './job-store.js';
import { goneDetail, parseJobId } from './job-view.js';

/**
 * The job of a raw (dashed or legacy) id: 404 when unknown, 410 when deleted or expired.
 * Jobs come from the process's caches when they are there (finished ones, and active
 * ones once their row is known current, see live-job-cache.ts).
 */
export async function findJob(ctx: RenderContext, rawId: string): Promise<JobRow> {
  const id = parseJobId(rawId);
  const cached = id ? (ctx.finishedJobs.get(id) ?? (await ctx.liveJobs.lookup(id))) : undefined;
  if (cached) return cached;
  const mark = ctx.liveJobs.mark();
  const job = id ? await ctx.jobReads.get(id) : undefined;
  if (!job) throw renderErrors.JOB_NOT_FOUND();
  ctx.liveJobs.offer(job, mark);
  ctx.finishedJobs.offer(job);
  if (job.removal)
    throw renderErrors.JOB_GONE({
      detail: goneDetail(job.removal, ctx.settings.artifactRetentionDays),
    });
  return job;
}

/** A job's v1 JSON, made once while the job stays in either cache (its row is unchanged). */
export function jobV1Json(
  ctx: RenderContext,
  job: JobRow,
  render: (job: JobRow) => string,
): string {
  return ctx.liveJobs.v1Json(job, render) ?? ctx.finishedJobs.v1Json(job, render);
}

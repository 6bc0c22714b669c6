/** `GET /v1/jobs` (paginated, filtered, newest first) and `GET /v1/jobs/{job_id}`. */
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import { JOB_STATUSES, countJobs, getJob, listJobs, type JobStatus } from './job-store.js';
import { parseJobId, toV1Job } from './job-view.js';

export async function findJob(ctx: RenderContext, rawId: string) {
  const id = parseJobId(rawId);
  const job = id ? await getJob(ctx.db, id) : undefined;
  if (!job) throw renderErrors.JOB_NOT_FOUND();
  return job;
}

export function registerJobRoutes(app: FastifyInstance, ctx: RenderContext): void {
  app.get<{ Querystring: { limit: number; offset: number; status?: JobStatus } }>(
    '/v1/jobs',
    {
      schema: {
        summary: 'List jobs, newest first',
        tags: ['jobs'],
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            offset: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 },
            status: { type: 'string', enum: [...JOB_STATUSES] },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'object',
            properties: {
              jobs: { type: 'array', items: { $ref: 'RenderJob#' } },
              total: { type: 'integer' },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          },
        },
      },
    },
    async (request) => {
      const { limit, offset, status } = request.query;
      const total = await countJobs(ctx.db, status);
      const rows = await listJobs(ctx.db, { limit, offset, status });
      return { jobs: rows.map(toV1Job), total, limit, offset };
    },
  );

  app.get<{ Params: { job_id: string } }>(
    '/v1/jobs/:job_id',
    {
      schema: {
        summary: 'One job: status, progress, replay stats, links to its artifacts',
        tags: ['jobs'],
        params: {
          type: 'object',
          properties: { job_id: { type: 'string' } },
          required: ['job_id'],
        },
        response: { 200: { $ref: 'RenderJob#' }, 404: { $ref: 'ErrorDetail#' } },
      },
    },
    async (request) => toV1Job(await findJob(ctx, request.params.job_id)),
  );
}

/** `GET /v1/jobs` (paginated, filtered, newest first) and `GET /v1/jobs/{job_id}`. */
import { callerHasScope, errorResponses, securitySchemeName } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import { removeJob } from '../retention/job-removal.js';
import { JOB_STATUSES, countJobs, listJobs, type JobStatus } from './job-store.js';
import { findJob, jobV1Json } from './find-job.js';
import { toV1Job } from './job-view.js';
import { jobIdParams } from './job-schemas.js';

export function registerJobRoutes(app: FastifyInstance, ctx: RenderContext): void {
  app.get<{ Querystring: { limit: number; offset: number; status?: JobStatus } }>(
    '/v1/jobs',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'listJobs',
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
            description: 'A page of jobs',
            type: 'object',
            required: ['jobs', 'total', 'limit', 'offset'],
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
      config: { scope: 'open' },
      schema: {
        operationId: 'getJob',
        summary: 'One job: status, progress, replay stats, links to its artifacts',
        tags: ['jobs'],
        params: jobIdParams,
        response: {
          200: { description: 'The job', $ref: 'RenderJob#' },
          ...errorResponses(renderErrors.definitions, ['JOB_NOT_FOUND', 'JOB_GONE']),
        },
      },
    },
    async (request, reply) => {
      const job = await findJob(ctx, request.params.job_id);
      // A job's view is serialized once while it stays cached (its row does not change).
      const body = jobV1Json(ctx, job, (j) => reply.serialize(toV1Job(j)) as string);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.delete<{ Params: { job_id: string } }>(
    '/v1/jobs/:job_id',
    {
      // Open like submission (submitters have no key): the submitter deletes its own job
      // (same address); any other job needs an operator (`operate` key, or loopback
      // without keys).
      config: { scope: 'open' },
      schema: {
        operationId: 'deleteJob',
        summary: 'Cancel a queued or running render, or delete a finished one, with its artifacts',
        description:
          'The client that submitted the job (same address) or an operator. A queued job never starts; a running one is stopped by its worker within a heartbeat (5 s) and its temp files removed. The replay, log, video and thumbnail are deleted (a video shared with an identical later submission stays until its last job goes). Afterwards the job answers 410.',
        tags: ['jobs'],
        // No key for the submitter; an operator's key lets anyone else delete it.
        security: [{}, { [securitySchemeName('operate')]: [] }],
        params: jobIdParams,
        response: {
          204: { type: 'null', description: 'Cancelled or deleted.' },
          403: { $ref: 'Error#' },
          404: { $ref: 'Error#' },
          410: { $ref: 'Error#' },
        },
      },
    },
    async (request, reply) => {
      const job = await findJob(ctx, request.params.job_id);
      const owner = ctx.clientAddress(request.raw) === job.client_ip;
      if (!owner && !callerHasScope(request, 'operate')) throw renderErrors.JOB_NOT_YOURS();
      const removed = await removeJob(ctx.db, ctx.store, job.id, 'deleted', new Date(), ctx.logger);
      // Removed meanwhile by another request or the sweeper: answer as it now stands.
      if (!removed) await findJob(ctx, job.id);
      request.log.info({ jobId: job.id, removal: removed?.removal }, 'job removed on request');
      return reply.code(204).send();
    },
  );
}

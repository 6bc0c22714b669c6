/**
 * Deprecated unversioned routes, delegating to the v1 use cases and answering in the
 * legacy shapes: dashless ids, `complete`, `percent`, Unix-float times, the 50 newest
 * jobs, `quality` → resolution, redirects to artifacts.
 */
import { errorResponses } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { renderErrors } from '../errors.js';
import { LEGACY_RENDER_FORM_SCHEMA } from '../admission/render-form-schema.js';
import { SUBMISSION_ERRORS } from '../admission/submission-errors.js';
import { submitFromRequest } from '../admission/submit-from-request.js';
import type { RenderContext } from '../context.js';
import { listJobs } from '../jobs/job-store.js';
import { findJob } from '../jobs/find-job.js';
import { legacyJobId, parseJobId, toLegacyStatus } from '../jobs/job-view.js';
import {
  listSkinsHandler,
  SKIN_UPLOAD_FORM_SCHEMA,
  skinListResponses,
  skinUploadResponses,
  uploadSkinHandler,
} from '../skins/skin-handlers.js';

const LEGACY_LIST_SIZE = 50;
const tags = ['legacy'];
const deprecated = true;

function redirectId(raw: string): string {
  // Malformed ids still redirect: the artifact route answers 404/403 for them consistently.
  return parseJobId(raw) ?? raw;
}

export function registerLegacyRoutes(app: FastifyInstance, ctx: RenderContext): void {
  app.post(
    '/render',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'legacySubmitRender',
        summary: 'Deprecated: submit a replay (see POST /v1/render); `quality=ultra` gives 4k',
        tags,
        deprecated,
        consumes: ['multipart/form-data'],
        multipartBody: LEGACY_RENDER_FORM_SCHEMA,
        response: {
          200: {
            description: 'Queued',
            type: 'object',
            properties: {
              job_id: { type: 'string' },
              view_url: { type: 'string' },
              video_url: { type: 'string' },
            },
          },
          ...SUBMISSION_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const { jobId, headers } = await submitFromRequest(ctx, request, true);
      const hex = legacyJobId(jobId);
      return reply
        .headers(headers)
        .send({ job_id: hex, view_url: `/view/${hex}`, video_url: `/video/${hex}.mp4` });
    },
  );

  app.get<{ Params: { job_id: string } }>(
    '/status/:job_id',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'legacyJobStatus',
        summary: 'Deprecated: job status in the legacy shape',
        tags,
        deprecated,
        response: {
          200: { description: 'The job', $ref: 'LegacyJobStatus#' },
          ...errorResponses(renderErrors.definitions, ['JOB_NOT_FOUND', 'JOB_GONE']),
        },
      },
    },
    async (request) => toLegacyStatus(await findJob(ctx, request.params.job_id)),
  );

  app.get(
    '/jobs',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'legacyListJobs',
        summary: 'Deprecated: the 50 newest jobs, a flat array',
        tags,
        deprecated,
        response: {
          200: {
            description: 'The newest jobs',
            type: 'array',
            items: { $ref: 'LegacyJobStatus#' },
          },
        },
      },
    },
    async () =>
      (await listJobs(ctx.db, { limit: LEGACY_LIST_SIZE, offset: 0 })).map(toLegacyStatus),
  );

  const redirects: [string, string, string, (id: string) => string][] = [
    [
      '/video/:file',
      'legacyVideo',
      'Deprecated: redirects to the video artifact',
      (id) => `/v1/artifacts/videos/${id}.mp4`,
    ],
    [
      '/thumbnail/:file',
      'legacyThumbnail',
      'Deprecated: redirects to the thumbnail artifact',
      (id) => `/v1/artifacts/thumbnails/${id}.jpg`,
    ],
    [
      '/logs/:file',
      'legacyLog',
      'Deprecated: redirects to the log artifact',
      (id) => `/v1/artifacts/logs/${id}.log`,
    ],
  ];
  for (const [path, operationId, summary, target] of redirects) {
    app.get<{ Params: { file: string } }>(
      path,
      {
        config: { scope: 'open' },
        schema: {
          operationId,
          summary,
          tags,
          deprecated,
          params: {
            type: 'object',
            properties: { file: { type: 'string' } },
            required: ['file'],
          },
          response: {
            302: { description: 'Redirect to the artifact (GET /v1/artifacts/…)', type: 'null' },
          },
        },
      },
      async (request, reply) => {
        const raw = request.params.file.replace(/\.(mp4|jpg)$/i, '');
        return reply.redirect(target(encodeURIComponent(redirectId(raw))), 302);
      },
    );
  }

  app.get(
    '/skins',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'legacyListSkins',
        summary: 'Deprecated: same as GET /v1/skins',
        tags,
        deprecated,
        response: skinListResponses,
      },
    },
    listSkinsHandler(ctx),
  );
  app.post(
    '/skins/upload',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'legacyUploadSkin',
        summary: 'Deprecated: same as POST /v1/skins/upload, 5 per minute',
        tags,
        deprecated,
        consumes: ['multipart/form-data'],
        multipartBody: SKIN_UPLOAD_FORM_SCHEMA,
        response: skinUploadResponses,
      },
    },
    uploadSkinHandler(ctx, () => ctx.limiters.legacySkinUpload),
  );
}

/** `POST /v1/render`: read the form, validate it in the spec's order, admit it. */
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';
import { EXTRA_RENDER_PARAMETERS_HELP } from '../jobs/extra-render-parameters.js';
import { RENDER_FORM_SCHEMA } from './render-form-schema.js';
import { SUBMISSION_ERRORS } from './submission-errors.js';
import { submitFromRequest } from './submit-from-request.js';

const RENDER_FIELDS =
  'multipart/form-data: replay (file, .osr, required); skin (default "Default", ^[a-zA-Z0-9_ -]+$); ' +
  'bg_dim (0.0-1.0, default 0.95; above 1 is read as a percentage); resolution (1080p|4k, default 1080p); ' +
  'motion_blur, storyboard, snaking_in, snaking_out, hit_error_meter, key_overlay (bool, default true); video (bool, default false). ' +
  `Beyond the spec, as o!rdr: ${EXTRA_RENDER_PARAMETERS_HELP}.`;

export function registerAdmissionRoutes(app: FastifyInstance, ctx: RenderContext): void {
  app.post(
    '/v1/render',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'submitRender',
        summary: 'Submit a replay for rendering',
        description: `${RENDER_FIELDS} Checks, first failure wins: extension/size (400/413), replay structure and mode 0 (415), parameters (422), rate limit 5/min/address (429), queue depth and rendering capacity (503), two active jobs per address (429).`,
        tags: ['render'],
        consumes: ['multipart/form-data'],
        multipartBody: RENDER_FORM_SCHEMA,
        response: {
          202: {
            description: 'Queued',
            type: 'object',
            required: ['job_id', 'status', 'links'],
            properties: {
              job_id: { type: 'string', format: 'uuid' },
              status: { type: 'string', enum: ['queued'] },
              links: {
                type: 'object',
                properties: { status: { type: 'string' }, view: { type: 'string' } },
              },
            },
          },
          ...SUBMISSION_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const { jobId, headers } = await submitFromRequest(ctx, request, false);
      return reply
        .code(202)
        .headers(headers)
        .send({
          job_id: jobId,
          status: 'queued',
          links: { status: `/v1/jobs/${jobId}`, view: `/view/${jobId}` },
        });
    },
  );
}

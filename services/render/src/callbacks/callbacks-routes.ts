/**
 * `POST /v1/jobs/{job_id}/callback`: a remote worker reports progress, completion or
 * failure. Authenticated by an HMAC-SHA256 signature over timestamp, nonce, job id and
 * raw body (`signature.ts`); missing, stale or bad signatures and a nonce seen before get
 * 401, and the route answers 403 while no `CALLBACK_SECRET` is configured.
 */
import { errorResponses } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import { toV1Job } from '../jobs/job-view.js';
import { findJob } from '../jobs/find-job.js';
import { applyWorkerReport, type WorkerReport } from './apply-report.js';
import { parseJobId } from '../jobs/job-view.js';
import {
  CALLBACK_SECURITY_SCHEME,
  NONCE_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyCallback,
} from './signature.js';

const reportSchema = {
  type: 'object',
  required: ['worker_id', 'status'],
  additionalProperties: false,
  properties: {
    worker_id: { type: 'string', minLength: 1, maxLength: 200 },
    status: { type: 'string', enum: ['downloading', 'rendering', 'completed', 'failed'] },
    progress: { type: 'number', minimum: 0, maximum: 100 },
    map_title: { type: 'string', maxLength: 500 },
    error: { type: 'string', maxLength: 2000 },
  },
} as const;

const STATUSES = new Set(reportSchema.properties.status.enum);
const KNOWN = new Set(Object.keys(reportSchema.properties));

/** Checks a parsed body against `reportSchema` (kept as the documented schema). */
function isWorkerReport(value: unknown): value is WorkerReport {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  const optionalString = (v: unknown, max: number) =>
    v === undefined || (typeof v === 'string' && v.length <= max);
  return (
    Object.keys(r).every((k) => KNOWN.has(k)) &&
    typeof r.worker_id === 'string' &&
    r.worker_id.length >= 1 &&
    r.worker_id.length <= 200 &&
    typeof r.status === 'string' &&
    STATUSES.has(r.status as never) &&
    (r.progress === undefined ||
      (typeof r.progress === 'number' && r.progress >= 0 && r.progress <= 100)) &&
    optionalString(r.map_title, 500) &&
    optionalString(r.error, 2000)
  );
}

export function registerCallbackRoutes(app: FastifyInstance, ctx: RenderContext): void {
  void app.register(async (scope) => {
    // The signature covers the exact bytes sent, so the body is kept raw and parsed here.
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: 64 * 1024 },
      (_req, body, done) => done(null, body),
    );
    scope.post<{ Params: { job_id: string }; Body: Buffer }>(
      '/v1/jobs/:job_id/callback',
      {
        config: { scope: 'open' },
        schema: {
          operationId: 'reportJobProgress',
          summary:
            'Remote worker report (HMAC-SHA256 signed: X-Render-Timestamp, X-Render-Signature)',
          description:
            'Signature: `sha256=` + hex HMAC-SHA256(CALLBACK_SECRET, `<timestamp>.<nonce>.<job id>.<raw body>`) with X-Render-Nonce unique per report (16-128 of A-Z a-z 0-9 _ -) and the dashed lower-case job id; timestamps more than 300 s off and nonces seen before are refused. ' +
            'Body: {worker_id, status: downloading|rendering|completed|failed, progress?, map_title?, error?}. ' +
            '`completed` requires videos/<id>.mp4, thumbnails/<id>.jpg and logs/<id>.log in storage.',
          tags: ['jobs'],
          // Open to API keys; the signature is the check (its scheme: app.ts).
          security: [{ [CALLBACK_SECURITY_SCHEME]: [] }],
          consumes: ['application/json'],
          response: {
            200: { description: 'The job as it is now', $ref: 'RenderJob#' },
            ...errorResponses(renderErrors.definitions, [
              'RENDER_VALIDATION',
              'CALLBACK_UNAUTHORIZED',
              'CALLBACK_DISABLED',
              'JOB_NOT_FOUND',
              'JOB_GONE',
              'CALLBACK_CONFLICT',
            ]),
          },
        },
      },
      async (request) => {
        const secret = ctx.settings.callbackSecret;
        if (!secret) throw renderErrors.CALLBACK_DISABLED();
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = (name: string) => {
          const value = request.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        const jobId = parseJobId(request.params.job_id) ?? request.params.job_id;
        const nonce = header(NONCE_HEADER);
        const check = verifyCallback(
          secret,
          {
            timestamp: header(TIMESTAMP_HEADER),
            nonce,
            signature: header(SIGNATURE_HEADER),
          },
          jobId,
          body,
          ctx.settings.callbackToleranceSeconds,
        );
        if (check !== 'ok') {
          throw renderErrors.CALLBACK_UNAUTHORIZED({
            detail:
              check === 'stale'
                ? 'Stale callback signature.'
                : 'Invalid or missing callback signature.',
          });
        }
        // A nonce is good once in the window where its timestamp is accepted (shared counters).
        const seen = await ctx.counters.increment(
          `render-callback-nonce:${nonce}`,
          ctx.settings.callbackToleranceSeconds * 2,
        );
        if (seen.count > 1)
          throw renderErrors.CALLBACK_UNAUTHORIZED({ detail: 'Replayed callback nonce.' });
        const { id } = await findJob(ctx, request.params.job_id);
        let report: unknown;
        try {
          report = JSON.parse(body.toString('utf8'));
        } catch {
          throw renderErrors.RENDER_VALIDATION({ detail: 'Callback body must be JSON.' });
        }
        if (!isWorkerReport(report))
          throw renderErrors.RENDER_VALIDATION({
            detail: 'Callback body does not match the report schema.',
          });
        return toV1Job(await applyWorkerReport(ctx.db, ctx.store, id, report as WorkerReport));
      },
    );
  });
}

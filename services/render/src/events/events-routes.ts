/**
 * `GET /v1/jobs/{job_id}/events`: Server-Sent Events with the job's state (`event: job`,
 * data = the v1 job plus `queue_position` and `eta_seconds`) whenever it changes, a
 * comment every 15 s to keep proxies from closing an idle stream, and the stream closed
 * after a finished job's last event (`event: gone` with a detail when it is removed).
 * Unknown id → 404, removed job → 410, before any stream starts. At most
 * `MAX_EVENT_STREAMS` streams per process (503) and 4 per address (429).
 */
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { goneDetail, toV1Job } from '../jobs/job-view.js';
import type { JobSnapshot } from './job-watcher.js';
import { jobIdParams } from '../jobs/job-schemas.js';

const STREAMS_PER_ADDRESS = 4;
const KEEPALIVE_MS = 15_000;

function eventData(snapshot: JobSnapshot) {
  return {
    ...toV1Job(snapshot.job),
    queue_position: snapshot.queuePosition,
    eta_seconds: snapshot.etaSeconds,
  };
}

export function registerEventRoutes(app: FastifyInstance, ctx: RenderContext): void {
  const perAddress = new Map<string, number>();
  const open = new Set<() => void>();
  // Streams never end by themselves while a job runs: end them so the server can close.
  app.addHook('preClose', async () => {
    for (const finish of [...open]) finish();
  });
  app.get<{ Params: { job_id: string } }>(
    '/v1/jobs/:job_id/events',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'streamJobEvents',
        summary: 'Live job state as Server-Sent Events (status, progress, queue position, ETA)',
        description:
          '`text/event-stream`. `event: job` with the v1 job plus `queue_position` (1 = next, null unless queued) and `eta_seconds` (null when unknown) on every change; the stream ends after a completed or failed job, or with `event: gone` {detail} when the job is removed.',
        tags: ['jobs'],
        // No `produces`: it would give the errors an event-stream type; the 200 names its own.
        params: jobIdParams,
        response: {
          200: {
            description: 'The event stream',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          404: { $ref: 'Error#' },
          410: { $ref: 'Error#' },
          429: { $ref: 'Error#' },
          503: { $ref: 'Error#' },
        },
      },
    },
    async (request, reply) => {
      const job = await findJob(ctx, request.params.job_id);
      const address = ctx.clientAddress(request.raw);
      if (ctx.jobEvents.watching >= ctx.settings.maxEventStreams)
        throw renderErrors.EVENT_STREAMS_BUSY({ headers: { 'Retry-After': '5' } });
      if ((perAddress.get(address) ?? 0) >= STREAMS_PER_ADDRESS)
        throw renderErrors.EVENT_STREAMS_PER_ADDRESS();
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write('retry: 2000\n\n');
      let last = '';
      let closed = false;
      const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
      const finish = () => {
        if (closed) return;
        closed = true;
        open.delete(finish);
        clearInterval(keepalive);
        unwatch();
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left > 0) perAddress.set(address, left);
        else perAddress.delete(address);
        res.end();
      };
      const unwatch = ctx.jobEvents.watch(job.id, (snapshot) => {
        if (closed) return;
        if (!snapshot || snapshot.job.removal) {
          const detail = snapshot?.job.removal
            ? goneDetail(snapshot.job.removal, ctx.settings.artifactRetentionDays)
            : 'Job not found.';
          res.write(`event: gone\ndata: ${JSON.stringify({ detail })}\n\n`);
          finish();
          return;
        }
        const data = JSON.stringify(eventData(snapshot));
        if (data !== last) {
          last = data;
          res.write(`event: job\ndata: ${data}\n\n`);
        }
        if (snapshot.job.status === 'completed' || snapshot.job.status === 'failed') finish();
      });
      open.add(finish);
      request.raw.on('close', finish);
    },
  );
}

/** `GET /` (home page) and `GET /view/{job_id}` (player page). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RenderContext } from '../context.js';
import { getJob, listJobs } from '../jobs/job-store.js';
import { goneDetail, parseJobId } from '../jobs/job-view.js';
import { listSkins } from '../skins/skin-library.js';
import { renderHomePage } from './home-page.js';
import { escapeHtml, layout } from './html.js';
import { renderPlayerPage } from './player-page.js';
import { jobIdParams } from '../jobs/job-schemas.js';

function baseUrl(ctx: RenderContext, request: FastifyRequest): string {
  if (ctx.settings.publicBaseUrl) return ctx.settings.publicBaseUrl.replace(/\/+$/, '');
  const host = /^[A-Za-z0-9.:[\]-]+$/.test(request.headers.host ?? '')
    ? request.headers.host
    : 'localhost';
  return `${request.protocol}://${host}`;
}

const htmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

export function registerPageRoutes(app: FastifyInstance, ctx: RenderContext): void {
  app.get(
    '/',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'getHomePage',
        summary: 'Home page: render form, skin upload, recent jobs',
        tags: ['pages'],
        response: { 200: htmlPage('The page') },
      },
    },
    async (_request, reply) => {
      const [skins, jobs] = await Promise.all([
        listSkins(ctx.store),
        listJobs(ctx.db, { limit: 20, offset: 0 }),
      ]);
      return reply.type('text/html; charset=utf-8').send(renderHomePage(skins, jobs));
    },
  );

  app.get<{ Params: { job_id: string } }>(
    '/view/:job_id',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'getJobPage',
        summary: 'Player page of a job: live progress, the video when done, OpenGraph video tags',
        tags: ['pages'],
        params: jobIdParams,
        response: {
          200: htmlPage('The page'),
          404: htmlPage('No such job (a page saying so)'),
          410: htmlPage('The job was deleted (a page saying so)'),
        },
      },
    },
    async (request, reply) => {
      const id = parseJobId(request.params.job_id);
      const job = id ? await getJob(ctx.db, id) : undefined;
      if (!job) {
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(layout('Job not found', '<h1>Job not found</h1><p><a href="/">Home</a></p>'));
      }
      if (job.removal) {
        const detail = goneDetail(job.removal, ctx.settings.artifactRetentionDays);
        return reply
          .code(410)
          .type('text/html; charset=utf-8')
          .send(
            layout(
              'Job gone',
              `<h1>Job gone</h1><p>${escapeHtml(detail)}</p><p><a href="/">Home</a></p>`,
            ),
          );
      }
      return reply
        .type('text/html; charset=utf-8')
        .send(renderPlayerPage(job, baseUrl(ctx, request)));
    },
  );
}

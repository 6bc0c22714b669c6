/**
 * The dashboard at `/` (issue 17): KPI tiles, the monthly trend, year-over-year growth,
 * the LTV ranking and the freight burden, drawn in the browser from the REST reads
 * (`/api/v1/...`), so it shows exactly what an API client gets. Everything it loads is
 * served here, same origin, as files (a strict CSP holds; no CDN, no build step):
 * the page, its script, the chart helpers the chat page shares, and Chart.js from
 * node_modules.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sendPage, sendScript } from '../http/page-reply.js';

const file = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
const PAGE = file('dashboard.html');
const SCRIPT = file('dashboard.js');
const CHARTS = file('charts.js');
// The UMD build: one file that defines `window.Chart`, no bundler needed. Its source map
// comment is dropped (the map is not served).
const CHART_JS = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js'),
  'utf8',
).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');

const open = { scope: 'open' } as const;

export function registerDashboardRoutes(app: FastifyInstance): void {
  app.get(
    '/',
    {
      config: open,
      schema: {
        operationId: 'getDashboardPage',
        summary: 'The dashboard page',
        tags: ['pages'],
        response: {
          200: {
            description: 'The page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => sendPage(reply, PAGE),
  );
  app.get('/static/dashboard.js', { config: open, schema: { hide: true } }, async (_r, reply) =>
    sendScript(reply, SCRIPT),
  );
  app.get('/static/charts.js', { config: open, schema: { hide: true } }, async (_r, reply) =>
    sendScript(reply, CHARTS),
  );
  app.get(
    '/static/vendor/chart.umd.min.js',
    { config: open, schema: { hide: true } },
    async (_r, reply) => sendScript(reply, CHART_JS),
  );
}

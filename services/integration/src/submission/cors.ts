/**
 * CORS for the legacy `/interns` paths (spec section 4): browsers from the configured
 * origins may call them; other origins get no CORS headers (the browser then refuses).
 * Preflight requests are answered 204.
 */
import type { FastifyInstance } from 'fastify';

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = 'content-type, x-request-id, x-trace-id';
const EXPOSED_HEADERS = 'x-request-id, x-trace-id';

export function installInternsCors(app: FastifyInstance, origins: readonly string[]): void {
  const allowed = new Set(origins.map((o) => o.replace(/\/$/, '')));
  const isInterns = (url: string) =>
    url === '/interns' || url.startsWith('/interns?') || url.startsWith('/interns/');

  // Callback-style: nothing here awaits, and every request runs it (issue 11).
  app.addHook('onRequest', (request, reply, done) => {
    if (isInterns(request.url)) {
      const origin = request.headers.origin;
      reply.header('vary', 'Origin');
      if (typeof origin === 'string' && (allowed.has(origin) || allowed.has('*'))) {
        reply.header('access-control-allow-origin', allowed.has('*') ? '*' : origin);
        reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      }
    }
    done();
  });

  app.options(
    '/interns',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'preflightInterns',
        summary: 'CORS preflight for /interns',
        tags: ['interns (legacy)'],
        response: {
          204: {
            description: 'The CORS headers, when the Origin is allowed (CORS_ORIGINS)',
            type: 'null',
          },
        },
      },
    },
    async (request, reply) => {
      if (reply.getHeader('access-control-allow-origin')) {
        reply.header('access-control-allow-methods', ALLOWED_METHODS);
        reply.header('access-control-allow-headers', ALLOWED_HEADERS);
        reply.header('access-control-max-age', '600');
      }
      return reply.code(204).send();
    },
  );
}

/**
 * The typed client's runtime for the services' own pages (issue 22): openapi-fetch's ESM
 * build, served as a JavaScript module at `/assets/openapi-fetch.js`, so a page with no
 * build step calls the API through the same client every other caller uses:
 *
 *   import createClient from '/assets/openapi-fetch.js';
 *   const api = createClient({ baseUrl: location.origin });
 *   const { data, error } = await api.GET('/v1/jobs/{job_id}', { params: { path: { job_id } } });
 *
 * The file is the one installed in node_modules (the version `@platform/client` uses), read
 * once at start. It keeps one URL across versions, so it is cached briefly and revalidated
 * by its ETag (a 304 costs no body) rather than cached for good.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ifNoneMatchHits } from './if-none-match.js';

export const CLIENT_MODULE_PATH = '/assets/openapi-fetch.js';
/** Five minutes fresh, then revalidated (If-None-Match → 304). */
const CACHE_CONTROL = 'public, max-age=300';

interface ClientModule {
  source: string;
  etag: string;
}

let loaded: ClientModule | undefined;

/** openapi-fetch's ESM entry (its `import` export), without the source map comment (the map is not served). */
export function clientModule(): ClientModule {
  if (!loaded) {
    const file = fileURLToPath(import.meta.resolve('openapi-fetch'));
    const source = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    const etag = `"${createHash('sha256').update(source).digest('base64url').slice(0, 27)}"`;
    loaded = { source, etag };
  }
  return loaded;
}

/**
 * Serves the client module at {@link CLIENT_MODULE_PATH}, documented under `tag` (the tag
 * the service's pages use). Call it on a service that serves pages.
 */
export function registerClientModule(app: FastifyInstance, tag: string): void {
  const { source, etag } = clientModule();
  const cacheHeaders = {
    ETag: { type: 'string', description: 'The version of the module' },
    'Cache-Control': { type: 'string', description: `How long it may be kept: ${CACHE_CONTROL}` },
  };
  app.get<{ Headers: { 'if-none-match'?: string } }>(
    CLIENT_MODULE_PATH,
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'getClientModule',
        summary: "The typed client's runtime (openapi-fetch, an ES module) the pages import",
        tags: [tag],
        headers: {
          type: 'object',
          properties: {
            'if-none-match': {
              type: 'string',
              description: 'An ETag this module was served with; a match answers 304',
            },
          },
        },
        response: {
          200: {
            description: 'The module',
            headers: cacheHeaders,
            content: { 'text/javascript': { schema: { type: 'string' } } },
          },
          304: {
            description: 'Not modified: the If-None-Match header holds the current ETag',
            type: 'null',
            headers: cacheHeaders,
          },
        },
      },
    },
    async (request, reply) => {
      reply.header('etag', etag).header('cache-control', CACHE_CONTROL);
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(source);
    },
  );
}

/**
 * `GET /v1/artifacts/{key}`: logs inline as text, everything else a 302 to a signed
 * storage URL; 403 for a key outside the prefixes or any traversal form, 404 when absent.
 */
import { InvalidObjectKeyError, ObjectNotFoundError } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { RenderContext } from '../context.js';
import { renderErrors } from '../errors.js';
import { ARTIFACT_TYPES, parseArtifactKey } from './artifact-key.js';

const ROUTE_PREFIX = '/v1/artifacts/';

export function registerArtifactRoutes(app: FastifyInstance, ctx: RenderContext): void {
  app.get(
    '/v1/artifacts/*',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'getArtifact',
        summary:
          'An artifact: logs inline, videos/thumbnails/replays/skins by redirect to a signed URL',
        tags: ['artifacts'],
        response: {
          200: {
            description: 'A log, inline',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          302: { description: 'Redirect to a signed URL of the object', type: 'null' },
          403: { $ref: 'Error#' },
          404: { $ref: 'Error#' },
        },
      },
    },
    async (request, reply) => {
      // The raw path, before any decoding, so encoded traversal forms are seen as sent.
      const rawPath = (request.raw.url ?? '').split('?')[0] ?? '';
      const parsed = rawPath.startsWith(ROUTE_PREFIX)
        ? parseArtifactKey(rawPath.slice(ROUTE_PREFIX.length))
        : undefined;
      if (!parsed) throw renderErrors.ARTIFACT_FORBIDDEN();
      const contentType = ARTIFACT_TYPES[parsed.prefix];
      try {
        if (parsed.prefix === 'logs/') {
          const body = await ctx.store.get(parsed.key);
          return reply
            .header('content-type', contentType)
            .header('cache-control', 'no-store')
            .send(body);
        }
        if (!(await ctx.store.exists(parsed.key))) throw renderErrors.ARTIFACT_NOT_FOUND();
        const url = await ctx.store.signedUrl(parsed.key, { contentType });
        return reply.redirect(url, 302);
      } catch (error) {
        if (error instanceof ObjectNotFoundError) throw renderErrors.ARTIFACT_NOT_FOUND();
        if (error instanceof InvalidObjectKeyError) throw renderErrors.ARTIFACT_FORBIDDEN();
        throw error;
      }
    },
  );
}

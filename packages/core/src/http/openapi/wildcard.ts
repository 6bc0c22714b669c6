/**
 * Fastify's wildcard (`/prefix/*`, read as `params['*']`) in the OpenAPI document: the
 * rest of the path as a named parameter, `{path}`, since OpenAPI has no unnamed ones.
 */
export const WILDCARD_PARAM = 'path';

const isWildcard = (url: string) => url.endsWith('/*');

/** `/v1/artifacts/*` → `/v1/artifacts/:path` (before @fastify/swagger formats it). */
export function openApiUrl(url: string): string {
  return isWildcard(url) ? `${url.slice(0, -1)}:${WILDCARD_PARAM}` : url;
}

/** The route schema with the wildcard declared as the `path` parameter. */
export function withWildcardParam<T>(schema: T, url: string): T {
  if (!isWildcard(url)) return schema;
  return {
    ...schema,
    params: {
      type: 'object',
      required: [WILDCARD_PARAM],
      properties: {
        [WILDCARD_PARAM]: { type: 'string', description: 'The rest of the path, slashes included' },
      },
    },
  } as T;
}

/**
 * A multipart route's form in the OpenAPI document. Such a route reads its parts as a
 * stream (@fastify/multipart), so it cannot carry a `body` schema: Fastify would validate
 * the (absent) parsed body against it and refuse every request. The route instead names
 * its form in `multipartBody`, which only the document reads: there it becomes the
 * `body`, and @fastify/swagger writes it as the `requestBody` of each `consumes` type, so
 * a generated client can build the call.
 */

declare module 'fastify' {
  interface FastifySchema {
    /** The multipart form, for the OpenAPI document only (never validated by Fastify). */
    multipartBody?: Record<string, unknown>;
  }
}

/** The route schema as the document sees it: `multipartBody` moved to `body`. */
export function withMultipartBody<T>(schema: T): T {
  const { multipartBody, ...rest } = (schema ?? {}) as { multipartBody?: Record<string, unknown> };
  if (multipartBody === undefined) return schema;
  return { ...rest, body: multipartBody } as T;
}

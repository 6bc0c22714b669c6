/**
 * `GET <routePrefix>/*`: serves the signed URLs of a store that does not serve its own
 * (the filesystem driver). Checks the signature and expiry, then streams the object with
 * its content type and length, honouring a single `Range: bytes=…` (206), as `<video>`
 * needs. Answers 403 `{"detail":"Invalid or expired signature."}` for a bad signature,
 * expiry or key, 404 `{"detail":"Not found."}` for a missing object, 416 for an
 * unsatisfiable range. Registers nothing for a store that serves its own URLs (S3).
 */
import { coreErrors, replyWithError } from '../errors/core-errors.js';
import { ERROR_SCHEMA_ID, errorResponses, errorSchema } from '../http/openapi/error-schema.js';
import type { FastifyInstance } from 'fastify';
import { InvalidObjectKeyError, ObjectNotFoundError, type ObjectStore } from './object-store.js';
import { asSignedObjectServer, type ByteRange, type OpenedObject } from './signed-object-server.js';

export interface SignedObjectRouteOptions {
  /** Path the route is mounted at; must match the store's. @defaultValue the store's route prefix (`/_objects`) */
  routePrefix?: string;
}

/**
 * Reads a `Range` header against an object of `size` bytes. Returns the range,
 * `undefined` to serve the whole object (no header, another unit, several ranges or a
 * malformed one), or `'unsatisfiable'`.
 */
export function parseByteRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return undefined;
  }
  return start >= size || start > end ? 'unsatisfiable' : { start, end };
}

/** Returns whether a route was registered (false for a store that serves its own URLs). */
export function registerSignedObjectRoute(
  app: FastifyInstance,
  store: ObjectStore,
  options: SignedObjectRouteOptions = {},
): boolean {
  const server = asSignedObjectServer(store);
  if (!server) return false;
  const prefix = (options.routePrefix ?? server.signedRoutePrefix).replace(/\/+$/, '');
  // Its error answers refer to the shared `Error` schema: createHttpApp registers it, a
  // bare Fastify instance (a test, an embedding) does not.
  if (!app.getSchema(ERROR_SCHEMA_ID)) app.addSchema(errorSchema);

  // The signature is the credential: anyone holding a valid signed URL may fetch it.
  const object = (description: string) => ({
    description,
    content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
  });
  const schema = {
    operationId: 'getSignedObject',
    summary: 'A stored object by its signed URL (filesystem storage; byte ranges supported)',
    tags: ['artifacts'],
    querystring: {
      type: 'object',
      properties: { expires: { type: 'string' }, signature: { type: 'string' } },
    },
    response: {
      200: object('The object'),
      206: object('The requested byte range'),
      ...errorResponses(coreErrors.definitions, [
        'SIGNATURE_INVALID',
        'OBJECT_NOT_FOUND',
        'RANGE_NOT_SATISFIABLE',
      ]),
    },
  };
  app.get(`${prefix}/*`, { config: { scope: 'open' }, schema }, async (request, reply) => {
    const key = (request.params as Record<string, string | undefined>)['*'] ?? '';
    const { expires, signature } = request.query as Record<string, unknown>;
    if (typeof expires !== 'string' || typeof signature !== 'string') {
      return replyWithError(reply, coreErrors.SIGNATURE_INVALID());
    }
    let object: OpenedObject;
    try {
      if (!server.verifySignature(key, expires, signature))
        return replyWithError(reply, coreErrors.SIGNATURE_INVALID());
      object = await server.openObject(key);
    } catch (error) {
      if (error instanceof InvalidObjectKeyError)
        return replyWithError(reply, coreErrors.SIGNATURE_INVALID());
      if (error instanceof ObjectNotFoundError)
        return replyWithError(reply, coreErrors.OBJECT_NOT_FOUND());
      throw error;
    }

    const range = parseByteRange(request.headers.range, object.size);
    reply.header('Accept-Ranges', 'bytes').header('Cache-Control', 'private');
    if (range === 'unsatisfiable') {
      await object.close();
      return replyWithError(
        reply,
        coreErrors.RANGE_NOT_SATISFIABLE({
          headers: { 'Content-Range': `bytes */${object.size}` },
        }),
      );
    }
    reply.header('Content-Type', object.contentType).header('X-Content-Type-Options', 'nosniff');
    if (range === undefined) {
      return reply.header('Content-Length', object.size).send(object.createReadStream());
    }
    return reply
      .code(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`)
      .header('Content-Length', range.end - range.start + 1)
      .send(object.createReadStream(range));
  });
  return true;
}

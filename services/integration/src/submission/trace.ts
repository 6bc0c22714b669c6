/**
 * Trace ids (spec 2.1, observability release): one UUID per user action. A caller's
 * `x-trace-id` is kept when it is a UUID, else the request id is used when it is one,
 * else a new id is made. It is returned in `x-trace-id`, stamped on the envelope, and
 * bound to the request's logger so every line the submission causes carries it.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const TRACE_HEADER = 'x-trace-id';

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
  }
}

export function installTraceIds(app: FastifyInstance): void {
  app.decorateRequest('traceId', '');
  app.addHook('onRequest', async (request, reply) => {
    const given = request.headers[TRACE_HEADER];
    const traceId =
      typeof given === 'string' && UUID.test(given)
        ? given.toLowerCase()
        : UUID.test(request.id)
          ? request.id
          : randomUUID();
    request.traceId = traceId;
    request.log = request.log.child({ traceId });
    reply.log = request.log;
    reply.header(TRACE_HEADER, traceId);
  });
}

export const traceOf = (request: FastifyRequest): string => request.traceId;

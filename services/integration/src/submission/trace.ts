/**
 * Trace ids (spec 2.1, observability release): one UUID per user action. A caller's
 * `x-trace-id` is kept when it is a UUID, else the request id is used when it is one,
 * else a new id is made. It is returned in `x-trace-id`, stamped on the envelope, and
 * bound to the request's logger so every line the submission causes carries it.
 *
 * The binding is made in the one child logger Fastify creates a request (its child
 * logger factory): a second child a request (`request.log.child({ traceId })`) cost a
 * pino child and its serialised bindings, 2.5 % of a single POST's profile (issue 11).
 * Routes registered before `installTraceIds` (health, metrics, docs) keep Fastify's
 * factory and get the second child as before.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const TRACE_HEADER = 'x-trace-id';

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
  }
}

/** The trace id the child logger factory chose for a raw request. */
const chosen = new WeakMap<IncomingMessage, string>();

function traceIdFor(headers: IncomingMessage['headers'], requestId: string): string {
  const given = headers[TRACE_HEADER];
  if (typeof given === 'string' && UUID.test(given)) return given.toLowerCase();
  return UUID.test(requestId) ? requestId : randomUUID();
}

export function installTraceIds(app: FastifyInstance): void {
  app.decorateRequest('traceId', '');
  app.setChildLoggerFactory((logger, bindings, options, raw) => {
    const traceId = traceIdFor(raw.headers, String(bindings.reqId ?? ''));
    chosen.set(raw as IncomingMessage, traceId);
    return logger.child({ ...bindings, traceId }, options);
  });
  // Callback-style: nothing here awaits, and every request runs it (issue 11).
  app.addHook('onRequest', (request, reply, done) => {
    let traceId = chosen.get(request.raw);
    if (traceId === undefined) {
      traceId = traceIdFor(request.headers, request.id);
      request.log = request.log.child({ traceId });
      reply.log = request.log;
    }
    request.traceId = traceId;
    reply.header(TRACE_HEADER, traceId);
    done();
  });
}

export const traceOf = (request: FastifyRequest): string => request.traceId;

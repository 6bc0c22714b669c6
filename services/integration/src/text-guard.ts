/**
 * Text PostgreSQL cannot hold, refused as a 400 before any route sees it: a NUL
 * character (`%00` in the path or query, `\u0000` in a JSON body) or an unpaired UTF-16
 * surrogate in a body string or key. Otherwise it reaches a query (text or jsonb
 * parameter) and fails there as a 500.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { integrationErrors } from './errors.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text);

/** Walks the parsed body without recursion: JSON may nest deeper than the call stack. */
function holdsUnstorableText(body: unknown): boolean {
  const stack = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (unstorable(value)) return true;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (unstorable(key)) return true;
        stack.push(item);
      }
    }
  }
  return false;
}

/**
 * Whether the route reads its URL (path parameters or a query string). A route that reads
 * neither (`/metrics`, `/console`, `/health`) ignores a `%00` there, so refusing it would
 * be a 400 its document does not (and should not) declare (issue 22's response check).
 */
function readsUrl(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema;
  const url = request.routeOptions.url ?? '';
  return /[:*]/.test(url) || schema?.querystring !== undefined || schema?.params !== undefined;
}

export function installTextGuard(app: FastifyInstance): void {
  // Callback-style: nothing here awaits, and every request runs it (issue 11).
  app.addHook('preValidation', (request, _reply, done) => {
    if ((request.url.includes('%00') && readsUrl(request)) || holdsUnstorableText(request.body))
      done(integrationErrors.TEXT_UNSTORABLE());
    else done();
  });
}

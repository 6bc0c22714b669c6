/**
 * Completes each documented route with the answers the shared bootstrap can give on any
 * route, so a route schema only lists what its own handler answers:
 * - the validation status (400, or the service's own) when the route validates input;
 * - 400, 413 and 415 for a route that reads a body (bad JSON, too large, wrong type);
 * - 401 and 403 on routes that need a key (missing/invalid key, missing scope);
 * - 500 everywhere (an unexpected failure; the body never carries internals);
 * - 503 everywhere when the app classifies dependency failures (`classifyError`).
 * A status the route already declares is kept as the route wrote it.
 */
import type { RouteOptions } from 'fastify';
import { errorResponse } from './error-schema.js';

interface SchemaLike {
  hide?: boolean;
  body?: unknown;
  querystring?: unknown;
  params?: unknown;
  headers?: unknown;
  response?: Record<string | number, unknown>;
}

// Fastify reads a body on every method but GET and HEAD.
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function addStandardResponses(
  route: RouteOptions,
  validationStatus: number,
  dependencyErrors = false,
): void {
  const schema = route.schema as SchemaLike | undefined;
  if (!schema || schema.hide) return;
  const methods = [route.method].flat();
  const readsBody = schema.body !== undefined || methods.some((m) => BODY_METHODS.has(m));
  const validates =
    readsBody ||
    schema.querystring !== undefined ||
    schema.params !== undefined ||
    schema.headers !== undefined ||
    /:\w/.test(route.url);
  const scope = route.config?.scope;
  const standard: Record<number, string> = {};
  if (readsBody) {
    standard[400] = 'The body is not valid JSON (or not of its declared type).';
    standard[413] = 'The body is larger than the service accepts.';
    standard[415] = 'The body has a content type this operation does not accept.';
  }
  if (validates) standard[validationStatus] = 'A parameter or the body does not match its schema.';
  if (scope !== undefined && scope !== 'open') {
    standard[401] = 'No API key, or not a valid one (`Authorization: Bearer <key>`).';
    standard[403] =
      'The API key lacks the scope this operation needs (or, without API_KEYS, the client is not on this machine).';
  }
  standard[500] = 'An unexpected failure; the body never carries internals.';
  if (dependencyErrors) standard[503] = 'A dependency (database, broker) is unavailable.';
  const response = { ...schema.response };
  for (const [status, description] of Object.entries(standard)) {
    if (response[status] === undefined) response[status] = errorResponse(description);
  }
  route.schema = { ...route.schema, response } as RouteOptions['schema'];
}

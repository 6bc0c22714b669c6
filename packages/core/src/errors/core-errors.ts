/**
 * The errors core answers itself (request checks, access, routing, signed objects), in one
 * registry like each service's, so every error body of the platform carries a `code`.
 */
import type { FastifyReply } from 'fastify';
import { defineErrors, type AppError } from './app-error.js';

export const coreErrors = defineErrors({
  /** A request that fails its route schema, a parameter that is not a finite number, or another client error Fastify reports (its own status). A service may answer 422 (`validationStatus`). */
  REQUEST_INVALID: { status: 400, detail: 'The request is not valid.' },
  BODY_TOO_LARGE: { status: 413, detail: 'Request body is too large' },
  MEDIA_TYPE_UNSUPPORTED: { status: 415, detail: 'Unsupported Media Type' },
  API_KEY_MISSING: {
    status: 401,
    detail: 'An API key is required: send it as "Authorization: Bearer <key>".',
  },
  API_KEY_INVALID: { status: 401, detail: 'The API key is not valid.' },
  SCOPE_MISSING: { status: 403, detail: 'The API key does not have the scope this route needs.' },
  LOCAL_ONLY: {
    status: 403,
    detail:
      'This operator route answers only clients on this machine while no API_KEYS are configured.',
  },
  ROUTE_NOT_FOUND: { status: 404, detail: 'Not Found' },
  SIGNATURE_INVALID: { status: 403, detail: 'Invalid or expired signature.' },
  OBJECT_NOT_FOUND: { status: 404, detail: 'Not found.' },
  RANGE_NOT_SATISFIABLE: { status: 416, detail: 'Range not satisfiable.' },
  INTERNAL_ERROR: { status: 500, detail: 'Internal Server Error' },
});

/** The body of an error answer: `{detail, code}` and the error's structured extras. */
export function errorBody(error: AppError): Record<string, unknown> {
  return { ...error.body, detail: error.detail, code: error.code };
}

/** Answers with a coded error: its status, headers and `errorBody`. */
export function replyWithError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply.code(error.statusCode).headers(error.headers).send(errorBody(error));
}

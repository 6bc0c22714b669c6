/**
 * Fastify bootstrap shared by every HTTP service: JSON logs with request ids, `/health`,
 * `/metrics`, an OpenAPI document from the route schemas (`/openapi.json`, browsable at
 * `/docs`), the access model (`config: { scope }` per route, see `access/`), and one error
 * handler that answers `{"detail": ..., "code": ...}` and never leaks internals.
 *
 * Register routes after `await createHttpApp(...)` so the OpenAPI document sees them.
 */
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { AppError, isAppError } from '../errors/app-error.js';
import { coreErrors, errorBody, replyWithError } from '../errors/core-errors.js';
import { installAccessControl } from './access/access-control.js';
import { LOCAL_ACCESS, type AccessPolicy } from './access/access-policy.js';
import { nonFiniteParameter } from './finite-numbers.js';
import { errorSchema } from './openapi/error-schema.js';
import {
  accessSecuritySchemes,
  withoutUnusedSecuritySchemes,
  type DocumentLike,
  type SecurityScheme,
} from './openapi/security-schemes.js';
import { installResponseCheck, responseCheckEnabled } from './openapi/response-check.js';
import { withMultipartBody } from './openapi/multipart-body.js';
import { openApiUrl, withWildcardParam } from './openapi/wildcard.js';
import { addStandardResponses } from './openapi/standard-responses.js';
import { checkHealth, type HealthCheck } from './health.js';
import { createMetricsRegistry, createRequestDurationHistogram } from './metrics.js';
import { OneLineRequestLog } from './one-line-request-log.js';

export interface HttpAppOptions {
  /** Service name: in logs, metrics labels and `/health`. */
  service: string;
  logger: Logger;
  /** Dependencies reported by `/health`; each throws when down. */
  health?: Record<string, HealthCheck>;
  /** Metrics registry the service also registers its own metrics on. @defaultValue a new one */
  metrics?: Registry;
  openapi?: OpenApiInfo;
  /** Largest accepted request body. @defaultValue 1 MiB */
  bodyLimitBytes?: number;
  /** Status for a request that fails its route schema. @defaultValue 400 */
  validationStatus?: number;
  /**
   * Who may call which route (`accessPolicyFromEnv`); routes declare `config.scope`.
   * @defaultValue local mode: no keys, `operate` routes answer loopback peers only
   */
  access?: AccessPolicy;
  /**
   * Turns an error that is not an `AppError` into one, e.g. a lost database connection
   * into a 503 naming the dependency; undefined leaves it a bare 500.
   */
  classifyError?: (error: unknown) => AppError | undefined;
  /**
   * Check every response against the app's own OpenAPI document (`installResponseCheck`).
   * @defaultValue on under `node --test` or with `OPENAPI_RESPONSE_CHECK=1`
   */
  responseCheck?: boolean;
  /**
   * How each request is logged at `info`: `fastify`, Fastify's two lines ("incoming
   * request" with the client's address and port, then "request completed"); `completed`,
   * the "request completed" line alone, "incoming request" at `debug` (`OneLineRequestLog`):
   * half the lines, a little less CPU per request.
   * @defaultValue `fastify`
   */
  requestLog?: 'fastify' | 'completed';
}

/** What a service says about itself in its OpenAPI document. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  /** Where the service answers; the first is where `npm start` runs it. */
  servers?: { url: string; description?: string }[];
  /** The tags its operations use, each with what it groups. */
  tags?: { name: string; description: string }[];
  /**
   * Schemes of checks a route does itself, beside the API keys (render's signed worker
   * callback); an `open` route names one in its schema's `security`.
   */
  securitySchemes?: Record<string, SecurityScheme>;
}

const REQUEST_ID_HEADER = 'x-request-id';
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const metrics = options.metrics ?? createMetricsRegistry(options.service);
  const requestDuration = createRequestDurationHistogram(metrics);
  const validationStatus = options.validationStatus ?? 400;
  const invalidRequest = (detail: string) =>
    new AppError('REQUEST_INVALID', validationStatus, detail);

  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    requestIdHeader: false,
    // A caller-supplied id is kept when it is sane, so one id follows a request across services.
    genReqId: (request) => {
      const given = request.headers[REQUEST_ID_HEADER];
      return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    },
    // Router-level failures (a URL that does not decode, a bad content type) get the same
    // `{"detail": ..., "code": ...}` body as every other error.
    frameworkErrors: (error, _request, reply) => {
      const raw = reply as unknown as { code(status: number): { send(body: unknown): void } };
      const coded = clientError(error);
      raw.code(coded.statusCode).send(errorBody(coded));
    },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
    ...(options.requestLog === 'completed' ? { logController: new OneLineRequestLog() } : {}),
  });

  // Hooks every request runs are callback-style where nothing is awaited: an async hook
  // costs a promise and a microtask hop a request each (issue 11, the intake's CPU a POST).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  const access = options.access ?? LOCAL_ACCESS;
  installAccessControl(app, access, metrics);
  // After the access hook (it sets each route's scope), before swagger reads the routes.
  app.addHook('onRoute', (route) =>
    addStandardResponses(route, validationStatus, options.classifyError !== undefined),
  );
  if (options.responseCheck ?? responseCheckEnabled()) installResponseCheck(app);
  if (options.access) logAccessMode(options.logger, options.service, access);
  app.addHook('preHandler', (request, reply, done) => {
    const problem = nonFiniteParameter(request);
    // Answered here: the chain stops (no `done`).
    if (problem) replyWithError(reply, invalidRequest(problem));
    else done();
  });
  // While shutting down, answers in flight end their keep-alive connection, so `close()`
  // is not left waiting for clients to hang up.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, _payload, done) => {
    if (closing) reply.header('connection', 'close');
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requestDuration
      .labels(request.method, route, String(reply.statusCode))
      .observe(reply.elapsedTime / 1000);
    done();
  });

  app.addSchema(errorSchema);
  await app.register(swagger, {
    // Shared schemas keep their `$id` as their component name (`Error`, `HealthReport`, …),
    // so generated clients get readable type names.
    // A wildcard (`/v1/artifacts/*`) is documented as a named parameter, `{path}`: OpenAPI
    // has no unnamed ones. `openApiPath` maps it the same way.
    // A multipart route's form (`multipartBody`, see multipart-body.ts) becomes its body here.
    transform: ({ schema, url }) => ({
      schema: withMultipartBody(withWildcardParam(schema, url)),
      url: openApiUrl(url),
    }),
    // Only OpenAPI documents are made here (`openapi` below), never Swagger 2.
    transformObject: (document) =>
      withoutUnusedSecuritySchemes((document as { openapiObject: DocumentLike }).openapiObject),
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    openapi: {
      openapi: '3.0.3',
      info: {
        title: options.openapi?.title ?? options.service,
        version: options.openapi?.version ?? '1.0.0',
        description: options.openapi?.description ?? '',
        // The repository carries no licence: say so rather than leave a client guessing.
        license: { name: 'UNLICENSED: a private project; no licence is granted' },
      },
      servers: options.openapi?.servers ?? [],
      tags: [
        { name: 'operations', description: 'Health, metrics: for operators and orchestrators.' },
        ...(options.openapi?.tags ?? []),
      ],
      components: {
        securitySchemes: {
          ...accessSecuritySchemes(),
          ...options.openapi?.securitySchemes,
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Service health and the state of each dependency',
        tags: ['operations'],
        response: {
          200: { description: 'Every dependency is up.', $ref: 'HealthReport#' },
          503: { description: 'A dependency is down.', $ref: 'HealthReport#' },
        },
      },
    },
    async (_request, reply) => {
      const report = await checkHealth(options.service, options.health ?? {});
      return reply.code(report.status === 'ok' ? 200 : 503).send(report);
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        tags: ['operations'],
        response: {
          200: {
            description: 'The metrics in the Prometheus text format.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) =>
      reply.header('content-type', metrics.contentType).send(await metrics.metrics()),
  );

  app.addSchema({
    $id: 'HealthReport',
    type: 'object',
    required: ['status', 'service', 'uptimeSeconds', 'dependencies'],
    properties: {
      status: { type: 'string', enum: ['ok', 'unavailable'] },
      service: { type: 'string' },
      uptimeSeconds: { type: 'number' },
      dependencies: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['up', 'down'] },
            latencyMs: { type: 'number' },
            info: {},
            error: { type: 'string' },
          },
        },
      },
    },
  });

  app.setNotFoundHandler(async (_request, reply) =>
    replyWithError(reply, coreErrors.ROUTE_NOT_FOUND()),
  );

  app.setErrorHandler(async (thrown: FastifyError, request, reply) => {
    const error = (!isAppError(thrown) && options.classifyError?.(thrown)) || thrown;
    if (isAppError(error)) {
      // A 503 is the service saying "not now" (a dependency down, capacity reached): worth a
      // warning, not an error page for the operator.
      if (error.statusCode === 503) request.log.warn({ code: error.code }, error.detail);
      else if (error.statusCode >= 500) request.log.error({ err: error }, error.message);
      return replyWithError(reply, error);
    }
    if (error.validation) return replyWithError(reply, invalidRequest(validationDetail(error)));
    // Fastify's own client errors (bad JSON, body too large, unsupported media type) carry
    // safe messages and a 4xx status.
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return replyWithError(reply, clientError(error));
    }
    request.log.error({ err: error }, 'unhandled error');
    return replyWithError(reply, coreErrors.INTERNAL_ERROR());
  });

  app.decorate('metricsRegistry', metrics);
  return app;
}

function logAccessMode(logger: Logger, service: string, access: AccessPolicy): void {
  if (access.keys.length === 0) {
    logger.warn(
      { service },
      'API_KEYS is not set (local mode): no key is asked for, operator routes answer only loopback clients ' +
        '(socket address), and the service listens on 127.0.0.1 unless HOST is set',
    );
  } else {
    logger.info(
      { service, keys: access.keys.map((key) => `${key.name}:${[...key.scopes].join('+')}`) },
      'API keys required: routes answer only requests with Authorization: Bearer <key> holding their scope',
    );
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's Prometheus registry: register service metrics on it. */
    metricsRegistry: Registry;
  }
}

/** Fastify's codes of client errors that have their own entry in `coreErrors`. */
const FASTIFY_CODES: Record<string, keyof typeof coreErrors.definitions> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'MEDIA_TYPE_UNSUPPORTED',
};

/** A Fastify client error (its message is safe to show) as a coded error with its status. */
function clientError(error: { code?: string; statusCode?: number; message: string }): AppError {
  const code = (error.code && FASTIFY_CODES[error.code]) || 'REQUEST_INVALID';
  return new AppError(code, error.statusCode ?? 400, error.message);
}

/**
 * The validator's message, naming the property an `additionalProperties` refusal is about
 * (Ajv's text says only "must NOT have additional properties", so a client could not tell
 * which of its parameters is unknown).
 */
function validationDetail(error: FastifyError): string {
  const first = error.validation?.[0];
  const unknown =
    first?.keyword === 'additionalProperties' ? first.params?.additionalProperty : undefined;
  return typeof unknown === 'string' ? `${error.message}: ${unknown}` : error.message;
}

/**
 * The operator's console (issue 7): one page served by the control plane at `/console`,
 * plus a narrow same-origin proxy so the page never talks to other origins: the
 * submission service's read model and record intake, and each adapter's admin API
 * (status, pause, resume only) at the `adminUrl` its type registered.
 */
import { readFileSync } from 'node:fs';
import {
  createOutboundGuard,
  errorResponses,
  LOCAL_OUTBOUND,
  OutboundRefusedError,
  type OutboundGuard,
  type SqlDatabase,
} from '@platform/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { integrationErrors } from '../../errors.js';
import { findAdapterType } from '../adapter-types/adapter-type-store.js';

const PAGE = readFileSync(new URL('./console.html', import.meta.url), 'utf8');
const SCRIPT = readFileSync(new URL('./console.js', import.meta.url), 'utf8');
const tags = ['console'];
/** The relayed answer: the upstream's own status and JSON body, as it came. */
const relayed = {
  description: "The upstream service's answer, status and body as it came",
  type: 'object',
  additionalProperties: true,
} as const;

export interface ConsoleOptions {
  db: SqlDatabase;
  /** Base URL of the submission service (resolved when a request needs it). */
  submissionUrl: () => string;
  /** Per proxied request. @defaultValue 5000 */
  timeoutMs?: number;
  /** The key the console presents to the submission service and adapters (`platformApiKey`). */
  apiKey?: string | undefined;
  /** How adapters' admin URLs (registered by their types) are requested. @defaultValue a guard allowing loopback */
  outbound?: Pick<OutboundGuard, 'fetch'>;
}

async function forward(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  timeoutMs: number,
  apiKey: string | undefined,
  outbound?: Pick<OutboundGuard, 'fetch'>,
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  const headers = { ...init.headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
  try {
    response = outbound
      ? await outbound.fetch(url, {
          ...init,
          headers,
          timeoutMs,
          maxBytes: 1024 * 1024,
          maxRedirects: 0,
        })
      : await fetch(url, { ...init, headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    if (error instanceof OutboundRefusedError)
      throw integrationErrors.UPSTREAM_UNREACHABLE({
        detail: `the adapter's admin URL may not be requested: ${error.message}`,
        cause: error,
      });
    throw integrationErrors.UPSTREAM_UNREACHABLE({
      detail: `${new URL(url).origin} is unreachable`,
      cause: error,
    });
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    body = { detail: text.slice(0, 500) };
  }
  return { status: response.status, body };
}

export function registerConsoleRoutes(app: FastifyInstance, options: ConsoleOptions): void {
  const timeoutMs = options.timeoutMs ?? 5000;
  // Admin URLs come from whoever registered the adapter type: the console relays only what the guard allows.
  const outbound = options.outbound ?? createOutboundGuard({ allowed: LOCAL_OUTBOUND });
  const idParams = {
    type: 'object',
    properties: { contractId: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,62}$' } },
    required: ['contractId'],
  };

  app.get(
    '/console',
    {
      config: { scope: 'open' },
      schema: {
        operationId: 'getConsole',
        summary: 'The operator console (web page)',
        tags,
        response: {
          200: {
            description: 'The page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'")
        .send(PAGE),
  );
  app.get(
    '/console/app.js',
    { config: { scope: 'open' }, schema: { hide: true } },
    async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(SCRIPT),
  );

  app.get<{ Params: { contractId: string }; Querystring: { limit?: number } }>(
    '/console/api/contracts/:contractId/records',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'consoleListRecords',
        summary: "Records of a contract from the submission service's read model",
        tags,
        params: idParams,
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 } },
        },
        response: {
          ...errorResponses(integrationErrors.definitions, ['UPSTREAM_UNREACHABLE']),
          default: relayed,
        },
      },
    },
    async (request, reply) => {
      const { status, body } = await forward(
        `${options.submissionUrl()}/contracts/${request.params.contractId}/records?limit=${request.query.limit ?? 200}`,
        {},
        timeoutMs,
        options.apiKey,
      );
      return reply.code(status).send(body);
    },
  );

  app.post<{ Params: { contractId: string } }>(
    '/console/api/contracts/:contractId/records',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'consoleSubmitRecord',
        summary: 'Submit a record through the submission service',
        tags,
        params: idParams,
        body: { type: 'object' },
        response: {
          ...errorResponses(integrationErrors.definitions, ['UPSTREAM_UNREACHABLE']),
          default: relayed,
        },
      },
    },
    async (request, reply) => {
      const { status, body } = await forward(
        `${options.submissionUrl()}/contracts/${request.params.contractId}/records`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': request.id },
          body: JSON.stringify(request.body),
        },
        timeoutMs,
        options.apiKey,
      );
      return reply.code(status).send(body);
    },
  );

  const relayAdmin = async (
    request: FastifyRequest<{ Params: { type: string; action?: string } }>,
    reply: FastifyReply,
  ) => {
    const { type } = request.params;
    const action = request.params.action ?? 'status';
    const adapterType = await findAdapterType(options.db, type);
    if (!adapterType) throw integrationErrors.ADAPTER_TYPE_NOT_FOUND();
    if (!adapterType.adminUrl)
      throw integrationErrors.UPSTREAM_UNREACHABLE({
        detail: `adapter type ${type} registered no admin URL`,
      });
    const { status, body } = await forward(
      `${adapterType.adminUrl.replace(/\/+$/, '')}/admin/${action}`,
      { method: request.method },
      timeoutMs,
      options.apiKey,
      outbound,
    );
    return reply.code(status).send(body);
  };
  const adminErrors = errorResponses(integrationErrors.definitions, [
    'ADAPTER_TYPE_NOT_FOUND',
    'UPSTREAM_UNREACHABLE',
  ]);
  app.get<{ Params: { type: string } }>(
    '/console/api/adapter-types/:type/status',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'consoleAdapterStatus',
        summary: "An adapter's status, from its admin API through the control plane",
        tags,
        params: { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] },
        response: { ...adminErrors, default: relayed },
      },
    },
    relayAdmin,
  );
  app.post<{ Params: { type: string; action: string } }>(
    '/console/api/adapter-types/:type/:action',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'consoleAdapterAction',
        summary: 'Pause or resume an adapter through the control plane (its admin API)',
        tags,
        params: {
          type: 'object',
          properties: {
            type: { type: 'string' },
            action: { type: 'string', enum: ['pause', 'resume'] },
          },
          required: ['type', 'action'],
        },
        response: { ...adminErrors, default: relayed },
      },
    },
    relayAdmin,
  );
}

/**
 * MCP over HTTP, mounted in Fastify (the transports write to the raw response, so each
 * handler hijacks the reply):
 * - Streamable HTTP at `/mcp`, stateless (JSON responses): no session state, so any
 *   instance can answer any request; one server of the process answers every POST
 *   (`stateless-exchange.ts`), each request carrying its caller's SQL rights. GET and
 *   DELETE are 405, as there is no session to stream to or end.
 * - the legacy HTTP+SSE transport: `GET /sse` opens a session stream that announces
 *   `/messages?sessionId=…`, where the client POSTs its messages. Sessions live in this
 *   process (at most `MAX_SSE_SESSIONS`) and are closed when the app closes.
 */
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  callerHasScope,
  errorResponses,
  replyWithError,
  type ClientAddressResolver,
  type RouteScope,
} from '@platform/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { analyticsErrors } from '../errors.js';
import {
  createMcpServer,
  SQL_TOOL,
  viewToolCallKey,
  type McpDependencies,
  type SqlCaller,
} from './mcp-server.js';
import { createStatelessExchange, type KeptAnswers } from './stateless-exchange.js';

/** A JSON-RPC 2.0 message: what MCP answers with, errors included. */
const jsonRpc = {
  type: 'object',
  required: ['jsonrpc'],
  properties: { jsonrpc: { type: 'string', enum: ['2.0'] } },
  additionalProperties: true,
} as const;

const notAllowed = {
  jsonrpc: '2.0',
  error: {
    code: -32000,
    message: 'Method not allowed: this server is stateless; POST JSON-RPC messages to /mcp',
  },
  id: null,
};

/** Open legacy SSE sessions at most; more are refused with 503 until some close. */
const MAX_SSE_SESSIONS = 100;

export interface McpRouteOptions extends McpDependencies {
  /** What `run_sql` needs (`SQL_TOOL_SCOPE`); the endpoints themselves need `read`. @defaultValue operate */
  sqlScope?: RouteScope;
  /** The caller's address (core's resolver, `TRUSTED_PROXIES`). @defaultValue the socket's */
  clientAddress?: ClientAddressResolver | undefined;
}

/**
 * Who is calling, for the SQL tool's per-client bounds: the API key's name when the caller
 * presented one (every address of one key is one client), else its address (core's
 * resolver, which believes `TRUSTED_PROXIES` only).
 */
function sqlClientOf(request: FastifyRequest, clientAddress?: ClientAddressResolver): string {
  if (request.apiKeyName) return `key:${request.apiKeyName}`;
  return `address:${clientAddress ? clientAddress(request) : request.ip}`;
}

/** Why this caller may not run SQL, or undefined when it may. */
function sqlRefusalFor(request: FastifyRequest, scope: RouteScope): string | undefined {
  if (scope === 'open' || callerHasScope(request, scope)) return undefined;
  return `${SQL_TOOL} needs the "${scope}" scope: an API key holding it, or a client on this machine while no API_KEYS are set`;
}

export async function registerMcpRoutes(
  app: FastifyInstance,
  options: McpRouteOptions,
): Promise<void> {
  const { sqlScope = 'operate', clientAddress, ...deps } = options;
  const callerOf = (request: FastifyRequest): SqlCaller => ({
    sqlRefusal: sqlRefusalFor(request, sqlScope),
    sqlClient: sqlClientOf(request, clientAddress),
  });
  const serverFor = (request: FastifyRequest) => createMcpServer({ ...deps, ...callerOf(request) });
  // A view tool's answer is kept whole in the warehouse's result cache (per build, as
  // REST keeps its answer per URL); a call answered from it still counts as a tool call.
  const keptAnswers: KeptAnswers = {
    keyOf: viewToolCallKey,
    async remember({ key, tool }, compute) {
      let computed = false;
      const kept = await deps.warehouse.remember(
        key,
        async () => {
          computed = true;
          return compute();
        },
        (answer) => answer.ok,
      );
      if (!computed) deps.onToolCall?.(tool, false);
      return kept;
    },
  };
  const exchange = await createStatelessExchange<SqlCaller>(
    (callerOfRequest) => createMcpServer({ ...deps, callerOf: callerOfRequest }),
    keptAnswers,
  );
  app.addHook('onClose', async () => exchange.close());
  const config = { scope: 'read' } as const;
  app.post(
    '/mcp',
    {
      config,
      schema: {
        operationId: 'mcpPost',
        summary: 'MCP Streamable HTTP endpoint (stateless, JSON-RPC)',
        tags: ['mcp'],
        body: { description: 'A JSON-RPC 2.0 message of MCP' },
        response: {
          200: {
            description: 'The JSON-RPC answer (an array of them for a batch of requests)',
            anyOf: [jsonRpc, { type: 'array', items: jsonRpc }],
          },
          202: { description: 'A notification or response was accepted', type: 'null' },
          // A message the transport refuses is a JSON-RPC error; a body Fastify cannot parse
          // never reaches it and gets the platform's error body.
          400: {
            description:
              'Not a valid JSON-RPC message (a JSON-RPC error), or a body that is not JSON (the platform error)',
            anyOf: [jsonRpc, { $ref: 'Error#' }],
          },
          406: {
            description: 'Accept must list application/json and text/event-stream',
            ...jsonRpc,
          },
        },
      },
    },
    async (request, reply) => {
      const answer = await exchange.handle(request.headers, request.body, callerOf(request));
      reply.code(answer.status);
      if (answer.body === undefined) return reply.send();
      return reply.type('application/json; charset=utf-8').send(answer.body);
    },
  );
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config,
      schema: {
        operationId: `mcp${method === 'GET' ? 'Get' : 'Delete'}`,
        summary: `MCP Streamable HTTP ${method}: not used by this stateless server (405)`,
        tags: ['mcp'],
        response: { 405: { description: 'Only POST is served (a JSON-RPC error)', ...jsonRpc } },
      },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(notAllowed),
    });
  }

  // A session answers messages only from the key that opened it (its run_sql right was
  // decided then); in local mode every caller has no key name and shares the rule.
  const sessions = new Map<
    string,
    { transport: SSEServerTransport; keyName: string | undefined }
  >();
  app.get(
    '/sse',
    {
      config,
      schema: {
        operationId: 'mcpSseOpen',
        summary: 'Legacy MCP HTTP+SSE transport: opens a session event stream',
        tags: ['mcp'],
        response: {
          200: {
            description: 'The session event stream (its first event names the message URL)',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errorResponses(analyticsErrors.definitions, ['MCP_SESSIONS_BUSY']),
        },
      },
    },
    async (request, reply) => {
      if (sessions.size >= MAX_SSE_SESSIONS) {
        return replyWithError(
          reply,
          analyticsErrors.MCP_SESSIONS_BUSY({ headers: { 'retry-after': '30' } }),
        );
      }
      reply.hijack();
      const transport = new SSEServerTransport('/messages', reply.raw);
      const server = serverFor(request);
      sessions.set(transport.sessionId, { transport, keyName: request.apiKeyName });
      reply.raw.on('close', () => {
        sessions.delete(transport.sessionId);
        void server.close();
      });
      await server.connect(transport);
      request.log.info({ sessionId: transport.sessionId }, 'MCP SSE session opened');
    },
  );
  app.post(
    '/messages',
    {
      config,
      schema: {
        operationId: 'mcpSseMessage',
        summary: 'Legacy MCP HTTP+SSE transport: a client message for a session',
        tags: ['mcp'],
        querystring: {
          type: 'object',
          properties: { sessionId: { type: 'string' } },
          required: ['sessionId'],
        },
        body: { description: 'A JSON-RPC 2.0 message of MCP' },
        response: {
          202: {
            description: 'Accepted; the answer arrives on the session event stream',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses(analyticsErrors.definitions, ['MCP_SESSION_NOT_FOUND']),
        },
      },
    },
    async (request, reply) => {
      const { sessionId } = request.query as { sessionId: string };
      const session = sessions.get(sessionId);
      if (!session || session.keyName !== request.apiKeyName)
        return replyWithError(reply, analyticsErrors.MCP_SESSION_NOT_FOUND());
      reply.hijack();
      await session.transport.handlePostMessage(request.raw, reply.raw, request.body);
    },
  );
  app.addHook('preClose', async () => {
    await Promise.all([...sessions.values()].map(({ transport }) => transport.close()));
    sessions.clear();
  });
}

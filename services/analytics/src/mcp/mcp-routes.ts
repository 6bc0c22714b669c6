/**
 * MCP over HTTP, mounted in Fastify (the transports write to the raw response, so each
 * handler hijacks the reply):
 * - Streamable HTTP at `/mcp`, stateless: every POST gets a fresh server and transport
 *   (JSON responses), so any instance can answer any request; GET and DELETE are 405,
 *   as there is no session to stream to or end.
 * - the legacy HTTP+SSE transport: `GET /sse` opens a session stream that announces
 *   `/messages?sessionId=…`, where the client POSTs its messages. Sessions live in this
 *   process (at most `MAX_SSE_SESSIONS`) and are closed when the app closes.
 */
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { createMcpServer, type McpDependencies } from './mcp-server.js';

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

export function registerMcpRoutes(app: FastifyInstance, deps: McpDependencies): void {
  app.post(
    '/mcp',
    { schema: { summary: 'MCP Streamable HTTP endpoint (stateless, JSON-RPC)', tags: ['mcp'] } },
    async (request, reply) => {
      const server = createMcpServer(deps);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      reply.hijack();
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: {
        summary: `MCP Streamable HTTP ${method}: not used by this stateless server (405)`,
        tags: ['mcp'],
      },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(notAllowed),
    });
  }

  const sessions = new Map<string, SSEServerTransport>();
  app.get(
    '/sse',
    {
      schema: {
        summary: 'Legacy MCP HTTP+SSE transport: opens a session event stream',
        tags: ['mcp'],
      },
    },
    async (request, reply) => {
      if (sessions.size >= MAX_SSE_SESSIONS) {
        return reply
          .code(503)
          .header('retry-after', '30')
          .send({ detail: 'Too many open MCP SSE sessions; retry later or use /mcp' });
      }
      reply.hijack();
      const transport = new SSEServerTransport('/messages', reply.raw);
      const server = createMcpServer(deps);
      sessions.set(transport.sessionId, transport);
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
      schema: {
        summary: 'Legacy MCP HTTP+SSE transport: a client message for a session',
        tags: ['mcp'],
        querystring: {
          type: 'object',
          properties: { sessionId: { type: 'string' } },
          required: ['sessionId'],
        },
      },
    },
    async (request, reply) => {
      const { sessionId } = request.query as { sessionId: string };
      const transport = sessions.get(sessionId);
      if (!transport) return reply.code(404).send({ detail: 'Unknown or closed MCP session' });
      reply.hijack();
      await transport.handlePostMessage(request.raw, reply.raw, request.body);
    },
  );
  app.addHook('preClose', async () => {
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    sessions.clear();
  });
}

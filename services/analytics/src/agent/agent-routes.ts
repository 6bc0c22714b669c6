/**
 * `POST /api/v1/agent/chat` (the agent, or the offline planner when no LLM is
 * configured), and the chat page at `/chat`.
 */
import {
  rateLimitHeaders,
  type ClientAddressResolver,
  type RateLimiter,
  type RouteScope,
} from '@platform/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { analyticsErrors } from '../errors.js';
import { sendPage, sendScript } from '../http/page-reply.js';
import { CHAT_PAGE_HTML, CHAT_PAGE_SCRIPT } from './chat-page.js';
import type { LlmProvider } from './llm-types.js';
import type { Toolbox } from './mcp-toolbox.js';
import { runOfflinePlanner } from './offline-planner.js';
import { runAgent, type AgentLimits, type HistoryMessage } from './run-agent.js';

export interface AgentRouteOptions {
  toolbox: Toolbox;
  /** Undefined: the offline planner answers. */
  provider?: LlmProvider;
  /** The agent loop's bounds. @defaultValue runAgent's */
  limits?: AgentLimits;
  /** Per-client limit of chat requests; undefined: no limit. */
  rateLimit?: { limiter: RateLimiter; clientAddress: ClientAddressResolver };
  /** What the chat API needs (`AGENT_SCOPE`); the page itself is open. @defaultValue operate */
  scope?: RouteScope;
}

const MAX_MESSAGE_CHARS = 4000;
const MAX_HISTORY = 20;
/** All history turns together, in characters: what one request may make the model read. */
const MAX_HISTORY_CHARS = 40_000;

/**
 * The history a client sends is its own record of the conversation, so it is checked
 * rather than believed: turns alternate starting with the user, the last is the
 * assistant's (the new message is the next user turn), and it is bounded in total.
 * Returns what is wrong, or undefined.
 */
function historyProblem(history: HistoryMessage[]): string | undefined {
  for (const [index, turn] of history.entries()) {
    const expected = index % 2 === 0 ? 'user' : 'assistant';
    if (turn.role !== expected)
      return `history[${index}] must be a ${expected} turn: turns alternate, starting with the user`;
  }
  if (history.length % 2 !== 0) return 'history must end with an assistant turn';
  const chars = history.reduce((sum, turn) => sum + turn.content.length, 0);
  if (chars > MAX_HISTORY_CHARS)
    return `history holds ${chars} characters; at most ${MAX_HISTORY_CHARS} are accepted`;
  return undefined;
}

const chatBody = {
  type: 'object',
  additionalProperties: false,
  required: ['message'],
  properties: {
    message: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_MESSAGE_CHARS,
      pattern: '\\S',
      description: 'The question.',
    },
    history: {
      type: 'array',
      maxItems: MAX_HISTORY,
      description: 'Earlier turns of this conversation, oldest first (text only).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['role', 'content'],
        properties: {
          role: { type: 'string', enum: ['user', 'assistant'] },
          content: { type: 'string', maxLength: 8000 },
        },
      },
    },
  },
};

const chatResponse = {
  type: 'object',
  properties: {
    answer: { type: 'string' },
    mode: { type: 'string', enum: ['llm', 'offline'] },
    provider: { type: ['string', 'null'] },
    model: { type: ['string', 'null'] },
    steps: { type: 'integer' },
    tool_calls: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          arguments: {},
          is_error: { type: 'boolean' },
          result: {},
        },
      },
    },
  },
};

const errorSchema = { $ref: 'Error#' };

export function registerAgentRoutes(app: FastifyInstance, options: AgentRouteOptions): void {
  app.post(
    '/api/v1/agent/chat',
    {
      config: { scope: options.scope ?? 'operate' },
      schema: {
        operationId: 'askAgent',
        summary: 'Ask the sales agent a question',
        description:
          'The agent answers from the MCP tools (an LLM when LLM_PROVIDER is set, else the offline planner) and lists the tool calls it made.',
        tags: ['agent'],
        body: chatBody,
        response: {
          200: chatResponse,
          400: errorSchema,
          429: errorSchema,
          502: errorSchema,
          503: errorSchema,
          504: errorSchema,
        },
      },
      preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
        if (!options.rateLimit) return;
        const result = await options.rateLimit.limiter.check(
          options.rateLimit.clientAddress(request),
        );
        const headers = rateLimitHeaders(result);
        if (!result.allowed) {
          throw analyticsErrors.AGENT_RATE_LIMITED({
            detail: `Too many chat requests; retry after ${result.retryAfterSeconds} seconds`,
            headers,
          });
        }
        reply.headers(headers);
      },
    },
    async (request) => {
      const { message, history = [] } = request.body as {
        message: string;
        history?: HistoryMessage[];
      };
      const problem = historyProblem(history);
      if (problem) throw analyticsErrors.HISTORY_REJECTED({ detail: problem });
      const { provider } = options;
      if (!provider) {
        const answer = await runOfflinePlanner(options.toolbox, message);
        return { ...answer, mode: 'offline', provider: null, model: null };
      }
      const answer = await runAgent(
        { ...options.limits, provider, toolbox: options.toolbox },
        message,
        history,
      );
      return { ...answer, mode: 'llm', provider: provider.name, model: provider.model };
    },
  );

  // The page and its script are static; the chat API behind them needs `scope`.
  const open = { scope: 'open' } as const;
  app.get(
    '/chat',
    {
      config: open,
      schema: {
        operationId: 'getChatPage',
        summary: 'The chat page',
        tags: ['agent'],
        response: {
          200: {
            description: 'The page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => sendPage(reply, CHAT_PAGE_HTML),
  );
  app.get('/favicon.ico', { config: open, schema: { hide: true } }, async (_request, reply) =>
    reply.code(204).send(),
  );
  app.get('/chat/app.js', { config: open, schema: { hide: true } }, async (_request, reply) =>
    sendScript(reply, CHAT_PAGE_SCRIPT),
  );
}

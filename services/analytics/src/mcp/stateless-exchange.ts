/**
 * Stateless Streamable HTTP (`POST /mcp`, JSON responses) answered by one long-lived MCP
 * server instead of a new server and transport per request. Profiled (`node --cpu-prof`,
 * cached `tools/call`): the per-request server (its tools registered again), the SDK's
 * transport with its web `Request`/`Response` conversion, and closing both (which builds
 * an `McpError` with a stack trace) cost more CPU than the tool call itself.
 *
 * The HTTP rules are the SDK's stateless transport's (`webStandardStreamableHttp.js`),
 * same statuses and messages: `Accept` must list `application/json` and
 * `text/event-stream` (406); a body that is not JSON-RPC is a -32700 (400); at most 100
 * messages in a batch and one `initialize` (400); after initialization an unsupported
 * `mcp-protocol-version` is refused (400); notifications and responses alone are 202;
 * requests are answered with their responses, one object or, for a batch, an array.
 *
 * Each request gets an id of this process for its trip through the server (the SDK's
 * reason to refuse reusing a stateless transport is that two clients' ids could collide),
 * and its answer gets the client's id back. The caller's identity rides with it:
 * `callerOf(requestId)` in a tool handler. Whatever else the server sends (notifications,
 * requests to the client) has no stream to go to, as with the SDK's JSON responses.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** The SDK's bound on a batch (`MAX_BATCH_SIZE`). */
const MAX_BATCH = 100;

export interface ExchangeAnswer {
  status: 200 | 202 | 400 | 406;
  /** The JSON-RPC answer, absent for 202. */
  body?: unknown;
}

interface Waiting<Caller> {
  clientId: RequestId;
  caller: Caller;
  answer: (message: JSONRPCMessage) => void;
}

export interface StatelessExchange<Caller> {
  /** Answers one POST: its headers (`accept`, `mcp-protocol-version`) and parsed body. */
  handle(
    headers: Record<string, string | string[] | undefined>,
    body: unknown,
    caller: Caller,
  ): Promise<ExchangeAnswer>;
  /** Who sent the request now being handled by the server (by its id in this process). */
  callerOf(requestId: RequestId): Caller | undefined;
  close(): Promise<void>;
}

const jsonRpcError = (
  status: ExchangeAnswer['status'],
  code: number,
  message: string,
): ExchangeAnswer => ({
  status,
  body: { jsonrpc: '2.0', error: { code, message }, id: null },
});

/** `serverFor` builds the one server, given how its handlers find a request's caller. */
export async function createStatelessExchange<Caller>(
  serverFor: (callerOf: (requestId: RequestId) => Caller | undefined) => McpServer,
): Promise<StatelessExchange<Caller>> {
  const waiting = new Map<number, Waiting<Caller>>();
  const callerOf = (requestId: RequestId) =>
    typeof requestId === 'number' ? waiting.get(requestId)?.caller : undefined;
  const server = serverFor(callerOf);
  let nextId = 0;
  const transport: Transport = {
    async start() {},
    async close() {
      transport.onclose?.();
    },
    async send(message) {
      if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
      const entry = typeof message.id === 'number' ? waiting.get(message.id) : undefined;
      if (!entry) return;
      waiting.delete(message.id as number);
      entry.answer({ ...message, id: entry.clientId });
    },
  };
  await server.connect(transport);

  return {
    callerOf,
    async handle(headers, body, caller) {
      const accept = String(headers.accept ?? '');
      if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
        return jsonRpcError(
          406,
          -32000,
          'Not Acceptable: Client must accept both application/json and text/event-stream',
        );
      if (Array.isArray(body) && body.length > MAX_BATCH)
        return jsonRpcError(
          400,
          -32600,
          `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`,
        );
      let messages: JSONRPCMessage[];
      try {
        messages = (Array.isArray(body) ? body : [body]).map((message) =>
          JSONRPCMessageSchema.parse(message),
        );
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
      }
      // The method first: the SDK's check is a zod parse of the whole message, measured
      // (`node --cpu-prof`, cached tools/call) at about a tenth of the request's CPU.
      const initializing = messages.some(
        (message) =>
          'method' in message && message.method === 'initialize' && isInitializeRequest(message),
      );
      if (initializing && messages.length > 1)
        return jsonRpcError(
          400,
          -32600,
          'Invalid Request: Only one initialization request is allowed',
        );
      const version = headers['mcp-protocol-version'];
      if (
        !initializing &&
        typeof version === 'string' &&
        !SUPPORTED_PROTOCOL_VERSIONS.includes(version)
      )
        return jsonRpcError(
          400,
          -32000,
          `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        );
      const answers: Promise<JSONRPCMessage>[] = [];
      for (const message of messages) {
        if (!isJSONRPCRequest(message)) {
          transport.onmessage?.(message);
          continue;
        }
        const id = ++nextId;
        answers.push(
          new Promise((answer) => {
            waiting.set(id, { clientId: message.id, caller, answer });
            transport.onmessage?.({ ...message, id });
          }),
        );
      }
      if (answers.length === 0) return { status: 202 };
      const responses = await Promise.all(answers);
      return { status: 200, body: responses.length === 1 ? responses[0] : responses };
    },
    async close() {
      await server.close();
    },
  };
}

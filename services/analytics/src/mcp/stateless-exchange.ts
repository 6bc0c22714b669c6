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
 *
 * Kept answers (`keptAnswers`): a request whose answer depends on the request and the
 * data alone (a view tool's call) is answered, after its first time through the server,
 * from that answer serialized, with the request's id spliced in. The server parsed and
 * validated the request and checked its result against the tool's output schema that
 * first time; doing it again for the same bytes under the same build finds the same
 * answer, and was most of a cached call's CPU (profiled: serializing the result, its
 * text copy included, and the SDK's zod check of it).
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
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** The SDK's bound on a batch (`MAX_BATCH_SIZE`). */
const MAX_BATCH = 100;

export interface ExchangeAnswer {
  status: 200 | 202 | 400 | 406;
  /** The JSON-RPC answer, serialized (a kept answer as bytes); absent for 202. */
  body?: string | Buffer;
}

/** An answer as kept: the serialized JSON-RPC response after its id, and whether it may be kept. */
export interface KeptAnswer {
  /**
   * `"result":…}` or `"error":…}`: the response's JSON after `{"jsonrpc":"2.0","id":ID,`,
   * as UTF-8 bytes: joined to the id's bytes, a kept answer is copied once outside the
   * JavaScript heap, where a string joined and flattened per call was a new-space copy of
   * the whole answer (scavenges).
   */
  tail: Buffer;
  /** A result that is not a tool error (only those are kept). */
  ok: boolean;
}

/** A tool call whose answer may be kept: under `key`, for `tool`. */
export interface KeptCall {
  key: string;
  tool: string;
}

export interface KeptAnswers {
  /** The call of a request whose answer may be kept, or undefined (every other message). */
  keyOf(message: unknown): KeptCall | undefined;
  /** The answer kept for `call`, or `compute`'s, kept when it is `ok`. */
  remember(call: KeptCall, compute: () => Promise<KeptAnswer>): Promise<KeptAnswer>;
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
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
});

/** The 400 for an unsupported `mcp-protocol-version` (checked on every message but `initialize`). */
function versionRefusal(
  headers: Record<string, string | string[] | undefined>,
): ExchangeAnswer | undefined {
  const version = headers['mcp-protocol-version'];
  if (typeof version !== 'string' || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return;
  return jsonRpcError(
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
  );
}

/** The JSON-RPC response of `message` after its id (see `KeptAnswer`). */
function tailOf(message: JSONRPCMessage): Buffer {
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = message as JSONRPCMessage & { id?: RequestId };
  return Buffer.from(JSON.stringify(rest).slice(1));
}

/**
 * `serverFor` builds the one server, given how its handlers find a request's caller;
 * `keptAnswers` keeps the answers of requests it names (above).
 */
export async function createStatelessExchange<Caller>(
  serverFor: (callerOf: (requestId: RequestId) => Caller | undefined) => McpServer,
  keptAnswers?: KeptAnswers,
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

  /** Runs one request through the server; resolves with its response (under the client's id). */
  const dispatch = (message: JSONRPCRequest, caller: Caller) =>
    new Promise<JSONRPCMessage>((answer) => {
      const id = ++nextId;
      waiting.set(id, { clientId: message.id, caller, answer });
      transport.onmessage?.({ ...message, id });
    });

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
      // Only a plain request the parse below accepts as it is gets a key (`keyOf`).
      const call = Array.isArray(body) ? undefined : keptAnswers?.keyOf(body);
      if (call) {
        const refused = versionRefusal(headers);
        if (refused) return refused;
        const request = body as JSONRPCRequest;
        const kept = await keptAnswers!.remember(call, async () => {
          const response = await dispatch(request, caller);
          const result = 'result' in response ? (response.result as { isError?: unknown }) : {};
          return { tail: tailOf(response), ok: 'result' in response && result.isError !== true };
        });
        return {
          status: 200,
          body: Buffer.concat([
            Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},`),
            kept.tail,
          ]),
        };
      }
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
      if (!initializing) {
        const refused = versionRefusal(headers);
        if (refused) return refused;
      }
      const answers: Promise<JSONRPCMessage>[] = [];
      for (const message of messages) {
        if (!isJSONRPCRequest(message)) {
          transport.onmessage?.(message);
          continue;
        }
        answers.push(dispatch(message, caller));
      }
      if (answers.length === 0) return { status: 202 };
      const responses = await Promise.all(answers);
      return {
        status: 200,
        body: JSON.stringify(responses.length === 1 ? responses[0] : responses),
      };
    },
    async close() {
      await server.close();
    },
  };
}

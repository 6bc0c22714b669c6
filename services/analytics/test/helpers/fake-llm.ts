/**
 * A local HTTP server that plays an LLM API: it records each request and answers with the
 * next scripted reply, in the wire format of OpenAI chat completions, Gemini
 * generateContent or Anthropic Messages.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Provider = 'openai' | 'gemini' | 'anthropic';

export interface RecordedRequest {
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** `cutBody`: send the headers and half the body, then drop the connection. */
export type Reply = { status?: number; body: unknown; delayMs?: number; cutBody?: boolean };

export interface FakeLlm {
  url: string;
  requests: RecordedRequest[];
  /** Replies for the next requests, in order; the last one repeats. */
  script(replies: Reply[]): void;
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: RecordedRequest[] = [];
  let replies: Reply[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(raw || '{}') });
      const reply = replies.length > 1 ? replies.shift()! : replies[0];
      const send = () => {
        if (res.destroyed) return;
        const text =
          typeof reply?.body === 'string' ? reply.body : JSON.stringify(reply?.body ?? {});
        if (reply?.cutBody) {
          res.writeHead(reply.status ?? 200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          });
          res.write(text.slice(0, text.length >> 1), () => res.destroy());
          return;
        }
        res.writeHead(reply?.status ?? 200, { 'content-type': 'application/json' });
        res.end(text);
      };
      if (reply?.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (next) => {
      replies = [...next];
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A reply asking for one tool call; `args` is sent as given (a string for malformed JSON). */
export function toolCallReply(
  provider: Provider,
  name: string,
  args: unknown,
  id = 'call_1',
): Reply {
  if (provider === 'openai') {
    const argumentsText = typeof args === 'string' ? args : JSON.stringify(args);
    return {
      body: {
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id, type: 'function', function: { name, arguments: argumentsText } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
    };
  }
  if (provider === 'gemini')
    return {
      body: {
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args } }] } }],
      },
    };
  return {
    body: { content: [{ type: 'tool_use', id, name, input: args }], stop_reason: 'tool_use' },
  };
}

/** One reply asking for every call of `replies` (each made by `toolCallReply`) in one turn. */
export function mergeToolCalls(provider: Provider, replies: Reply[]): Reply {
  const bodies = replies.map((reply) => reply.body as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
  if (provider === 'openai') {
    const calls = bodies.flatMap((body) => body.choices[0].message.tool_calls);
    const [first] = bodies;
    return {
      body: {
        choices: [
          { ...first!.choices[0], message: { ...first!.choices[0].message, tool_calls: calls } },
        ],
      },
    };
  }
  if (provider === 'gemini') {
    const parts = bodies.flatMap((body) => body.candidates[0].content.parts);
    return { body: { candidates: [{ content: { role: 'model', parts } }] } };
  }
  return {
    body: { content: bodies.flatMap((body) => body.content), stop_reason: 'tool_use' },
  };
}

export function textReply(provider: Provider, text: string): Reply {
  if (provider === 'openai')
    return {
      body: { choices: [{ message: { role: 'assistant', content: text }, finish_reason: 'stop' }] },
    };
  if (provider === 'gemini')
    return { body: { candidates: [{ content: { role: 'model', parts: [{ text }] } }] } };
  return { body: { content: [{ type: 'text', text }], stop_reason: 'end_turn' } };
}

/** What the fake received as the tool results of the previous turn, provider-neutral. */
export function toolResultsIn(
  provider: Provider,
  body: Record<string, unknown>,
): Array<{ id?: string; name?: string; text: string; isError?: boolean }> {
  if (provider === 'openai') {
    return (body.messages as Array<Record<string, unknown>>)
      .filter((m) => m.role === 'tool')
      .map((m) => ({ id: m.tool_call_id as string, text: m.content as string }));
  }
  if (provider === 'gemini') {
    return (body.contents as Array<{ parts: Array<Record<string, unknown>> }>)
      .flatMap((c) => c.parts)
      .filter((p) => p.functionResponse)
      .map((p) => {
        const fr = p.functionResponse as {
          name: string;
          response: { result?: unknown; error?: string };
        };
        return {
          name: fr.name,
          text: fr.response.error ?? JSON.stringify(fr.response.result),
          isError: fr.response.error !== undefined,
        };
      });
  }
  return (body.messages as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => m.content as Array<Record<string, unknown>>)
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({
      id: b.tool_use_id as string,
      text: b.content as string,
      isError: b.is_error as boolean,
    }));
}

/** The system prompt and tool names as the provider received them. */
export function declaredIn(
  provider: Provider,
  body: Record<string, unknown>,
): { system: string; tools: string[] } {
  if (provider === 'openai') {
    const messages = body.messages as Array<{ role: string; content: string }>;
    const tools = body.tools as Array<{ function: { name: string } }>;
    return {
      system: messages[0]!.role === 'system' ? messages[0]!.content : '',
      tools: tools.map((t) => t.function.name),
    };
  }
  if (provider === 'gemini') {
    const system = (body.systemInstruction as { parts: Array<{ text: string }> }).parts[0]!.text;
    const tools = (body.tools as Array<{ functionDeclarations: Array<{ name: string }> }>)[0]!
      .functionDeclarations;
    return { system, tools: tools.map((t) => t.name) };
  }
  return {
    system: body.system as string,
    tools: (body.tools as Array<{ name: string }>).map((t) => t.name),
  };
}

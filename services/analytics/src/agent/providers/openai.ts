/**
 * OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp server, vLLM, …):
 * `POST {base}/chat/completions` with `tools` of type `function`; the model's
 * `tool_calls[].function.arguments` is a JSON string, passed on unparsed.
 * Base URL default `https://api.openai.com/v1` (include `/v1` for other servers).
 */
import type {
  ChatMessage,
  CompletionRequest,
  LlmProvider,
  ModelTurn,
  ProviderSettings,
} from '../llm-types.js';
import { malformedAnswer, postJson, trimSlash } from './post-json.js';

interface OpenAiAnswer {
  choices?: Array<{
    message?: {
      content?: string | null;
      tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: unknown } }>;
    };
  }>;
}

export function createOpenAiProvider(settings: ProviderSettings): LlmProvider {
  const base = trimSlash(settings.baseUrl ?? 'https://api.openai.com/v1');
  const model = settings.model ?? 'gpt-4o-mini';
  return {
    name: 'openai',
    model,
    async complete(request: CompletionRequest): Promise<ModelTurn> {
      const body = {
        model,
        messages: [{ role: 'system', content: request.system }, ...request.messages.map(toOpenAi)],
        tools: request.tools.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description, parameters: t.parameters },
        })),
        tool_choice: 'auto',
        temperature: 0,
        max_tokens: settings.maxTokens ?? 1024,
      };
      const headers: Record<string, string> = settings.apiKey
        ? { authorization: `Bearer ${settings.apiKey}` }
        : {};
      const answer = (await postJson(
        `${base}/chat/completions`,
        headers,
        body,
        settings,
        request.signal,
      )) as OpenAiAnswer;
      const message = answer?.choices?.[0]?.message;
      if (!message) throw malformedAnswer('no choices[0].message');
      return {
        text: typeof message.content === 'string' ? message.content : '',
        toolCalls: (message.tool_calls ?? []).map((call, index) => ({
          id: call.id ?? `call_${index}`,
          name: call.function?.name ?? '',
          arguments: call.function?.arguments ?? '{}',
        })),
      };
    },
  };
}

function toOpenAi(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'user') return { role: 'user', content: message.content };
  if (message.role === 'tool')
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
  return {
    role: 'assistant',
    content: message.content || null,
    tool_calls: message.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: {
        name: call.name,
        arguments:
          typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
    })),
  };
}

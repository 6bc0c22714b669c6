/**
 * Anthropic Messages: `POST {base}/v1/messages` with `tools` (`input_schema`); the model
 * answers `tool_use` blocks and gets `tool_result` blocks back in a user turn.
 * Base URL default `https://api.anthropic.com`.
 */
import type {
  ChatMessage,
  CompletionRequest,
  LlmProvider,
  ModelTurn,
  ProviderSettings,
} from '../llm-types.js';
import { malformedAnswer, postJson, trimSlash } from './post-json.js';

interface AnthropicAnswer {
  content?: Array<{ type?: string; text?: string; id?: string; name?: string; input?: unknown }>;
}

export function createAnthropicProvider(settings: ProviderSettings): LlmProvider {
  const base = trimSlash(settings.baseUrl ?? 'https://api.anthropic.com');
  const model = settings.model ?? 'claude-3-5-haiku-latest';
  return {
    name: 'anthropic',
    model,
    async complete(request: CompletionRequest): Promise<ModelTurn> {
      const body = {
        model,
        max_tokens: settings.maxTokens ?? 1024,
        system: request.system,
        messages: toMessages(request.messages),
        tools: request.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.parameters,
        })),
        temperature: 0,
      };
      const headers: Record<string, string> = { 'anthropic-version': '2023-06-01' };
      if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
      const answer = (await postJson(
        `${base}/v1/messages`,
        headers,
        body,
        settings,
        request.signal,
      )) as AnthropicAnswer;
      if (!Array.isArray(answer?.content)) throw malformedAnswer('no content blocks');
      return {
        text: answer.content
          .filter((b) => b.type === 'text')
          .map((b) => b.text ?? '')
          .join(''),
        toolCalls: answer.content
          .filter((b) => b.type === 'tool_use')
          .map((b, index) => ({
            id: b.id ?? `toolu_${index}`,
            name: b.name ?? '',
            arguments: b.input ?? {},
          })),
      };
    },
  };
}

function toMessages(messages: ChatMessage[]): unknown[] {
  const out: Array<{ role: string; content: unknown }> = [];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant') {
      const blocks: unknown[] = message.content ? [{ type: 'text', text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        blocks.push({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: typeof call.arguments === 'object' && call.arguments ? call.arguments : {},
        });
      }
      // The API refuses an empty assistant turn (a model that said nothing and was reminded).
      out.push({
        role: 'assistant',
        content: blocks.length ? blocks : [{ type: 'text', text: '(no answer)' }],
      });
    } else {
      const block = {
        type: 'tool_result',
        tool_use_id: message.toolCallId,
        content: message.content,
        is_error: message.isError,
      };
      const last = out.at(-1);
      if (last?.role === 'user' && Array.isArray(last.content))
        (last.content as unknown[]).push(block);
      else out.push({ role: 'user', content: [block] });
    }
  }
  return out;
}

/**
 * Gemini `generateContent`: `POST {base}/models/{model}:generateContent` with
 * `functionDeclarations`; the model answers `functionCall { name, args }` parts and gets
 * `functionResponse` parts back. Gemini accepts only an OpenAPI subset of JSON Schema,
 * so declarations are reduced to it. Base URL default
 * `https://generativelanguage.googleapis.com/v1beta`.
 */
import type {
  ChatMessage,
  CompletionRequest,
  LlmProvider,
  ModelTurn,
  ProviderSettings,
} from '../llm-types.js';
import { malformedAnswer, postJson, trimSlash } from './post-json.js';

interface GeminiAnswer {
  candidates?: Array<{
    content?: {
      parts?: Array<{
        text?: string;
        functionCall?: { id?: string; name?: string; args?: unknown };
      }>;
    };
  }>;
}

export function createGeminiProvider(settings: ProviderSettings): LlmProvider {
  const base = trimSlash(settings.baseUrl ?? 'https://generativelanguage.googleapis.com/v1beta');
  const model = settings.model ?? 'gemini-2.0-flash';
  return {
    name: 'gemini',
    model,
    async complete(request: CompletionRequest): Promise<ModelTurn> {
      const body = {
        systemInstruction: { parts: [{ text: request.system }] },
        contents: toContents(request.messages),
        tools: [
          {
            functionDeclarations: request.tools.map((t) => ({
              name: t.name,
              description: t.description,
              parameters: toGeminiSchema(t.parameters),
            })),
          },
        ],
        generationConfig: { temperature: 0, maxOutputTokens: settings.maxTokens ?? 1024 },
      };
      const headers: Record<string, string> = settings.apiKey
        ? { 'x-goog-api-key': settings.apiKey }
        : {};
      const url = `${base}/models/${encodeURIComponent(model)}:generateContent`;
      const answer = (await postJson(url, headers, body, settings, request.signal)) as GeminiAnswer;
      const parts = answer?.candidates?.[0]?.content?.parts;
      if (!Array.isArray(parts)) throw malformedAnswer('no candidates[0].content.parts');
      return {
        text: parts.map((p) => p.text ?? '').join(''),
        toolCalls: parts
          .filter((p) => p.functionCall)
          .map((p, index) => ({
            id: p.functionCall!.id ?? `gemini_call_${index}`,
            name: p.functionCall!.name ?? '',
            arguments: p.functionCall!.args ?? {},
          })),
      };
    },
  };
}

function toContents(messages: ChatMessage[]): unknown[] {
  const contents: Array<{ role: string; parts: unknown[] }> = [];
  for (const message of messages) {
    if (message.role === 'user')
      contents.push({ role: 'user', parts: [{ text: message.content }] });
    else if (message.role === 'assistant') {
      const parts: unknown[] = message.content ? [{ text: message.content }] : [];
      for (const call of message.toolCalls ?? [])
        parts.push({ functionCall: { name: call.name, args: asObject(call.arguments) } });
      contents.push({ role: 'model', parts: parts.length ? parts : [{ text: '(no answer)' }] });
    } else {
      const response = message.isError
        ? { error: message.content }
        : { result: parseOr(message.content) };
      const part = { functionResponse: { name: message.name, response } };
      const last = contents.at(-1);
      // Answers to one model turn's calls go back together in one user turn.
      if (
        last?.role === 'user' &&
        (last.parts[0] as { functionResponse?: unknown })?.functionResponse
      )
        last.parts.push(part);
      else contents.push({ role: 'user', parts: [part] });
    }
  }
  return contents;
}

const GEMINI_SCHEMA_KEYS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'minimum',
  'maximum',
  'enum',
  'items',
  'format',
  'nullable',
  'minLength',
  'maxLength',
]);

function toGeminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toGeminiSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!GEMINI_SCHEMA_KEYS.has(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toGeminiSchema(v)]),
      );
    } else out[key] = key === 'items' ? toGeminiSchema(value) : value;
  }
  return out;
}

function asObject(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return parseOr(value);
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

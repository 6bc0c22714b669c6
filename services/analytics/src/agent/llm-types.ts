/**
 * The agent's provider-neutral conversation: what the loop keeps, and what each provider
 * driver translates to and from its wire format.
 */

/** A tool as declared to the model: name, description, JSON Schema of its arguments. */
export interface ToolDeclaration {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** As the model sent it: a JSON string (OpenAI) or an object (Gemini, Anthropic). */
  arguments: unknown;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError: boolean };

/** One answer of the model: text, tool calls, or both. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
}

export interface CompletionRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolDeclaration[];
  /** Aborts the call when the request's deadline passes. */
  signal?: AbortSignal;
}

export interface LlmProvider {
  readonly name: 'openai' | 'gemini' | 'anthropic';
  readonly model: string;
  complete(request: CompletionRequest): Promise<ModelTurn>;
}

export interface ProviderSettings {
  /** API base URL. @defaultValue the provider's public endpoint */
  baseUrl?: string;
  apiKey?: string;
  /** @defaultValue a default model per provider */
  model?: string;
  /** Time limit per call. @defaultValue 30000 */
  timeoutMs?: number;
  /** Most tokens the model may answer with, per call. @defaultValue 1024 */
  maxTokens?: number;
  /** For tests: the fetch to use. @defaultValue global fetch */
  fetch?: typeof fetch;
}

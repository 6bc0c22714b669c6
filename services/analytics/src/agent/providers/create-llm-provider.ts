/** Picks the LLM driver from `LLM_PROVIDER`; undefined when none is configured (offline planner). */
import type { LlmProvider, ProviderSettings } from '../llm-types.js';
import { createAnthropicProvider } from './anthropic.js';
import { createGeminiProvider } from './gemini.js';
import { createOpenAiProvider } from './openai.js';

export type ProviderName = LlmProvider['name'];

export function createLlmProvider(
  name: ProviderName | undefined,
  settings: ProviderSettings,
): LlmProvider | undefined {
  if (name === 'openai') return createOpenAiProvider(settings);
  if (name === 'gemini') return createGeminiProvider(settings);
  if (name === 'anthropic') return createAnthropicProvider(settings);
  return undefined;
}

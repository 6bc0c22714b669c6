/**
 * The tool-calling loop: send the conversation and the tool declarations to the model;
 * run each function call it asks for through the MCP toolbox and return the result (or
 * the error: unknown tool, arguments that are not a JSON object, a failed tool); repeat
 * until the model answers in text or `maxSteps` model turns have passed. A model that
 * answers without calling any tool is reminded once of the rule. An answer quoting the
 * system prompt is replaced by a refusal.
 */
import type { ChatMessage, LlmProvider, ToolCall } from './llm-types.js';
import type { Toolbox } from './mcp-toolbox.js';
import { leaksPrompt, PROMPT_REFUSAL, SYSTEM_PROMPT } from './system-prompt.js';

export interface AgentOptions {
  provider: LlmProvider;
  toolbox: Toolbox;
  /** @defaultValue 6 */
  maxSteps?: number;
  /** Longest tool result passed to the model, in characters. @defaultValue 20000 */
  maxToolResultChars?: number;
}

export interface ToolCallRecord {
  name: string;
  arguments: unknown;
  is_error: boolean;
  result: unknown;
}

export interface AgentAnswer {
  answer: string;
  tool_calls: ToolCallRecord[];
  steps: number;
}

export type HistoryMessage = { role: 'user' | 'assistant'; content: string };

const REMINDER = 'Call a tool to get the figures before you answer; do not answer from memory.';

export async function runAgent(
  options: AgentOptions,
  question: string,
  history: HistoryMessage[] = [],
): Promise<AgentAnswer> {
  const { provider, toolbox } = options;
  const maxSteps = options.maxSteps ?? 6;
  const tools = await toolbox.declarations();
  const toolNames = new Set(tools.map((t) => t.name));
  const messages: ChatMessage[] = [...history, { role: 'user', content: question }];
  const records: ToolCallRecord[] = [];
  let reminded = false;

  for (let step = 1; step <= maxSteps; step++) {
    const turn = await provider.complete({ system: SYSTEM_PROMPT, messages, tools });
    if (turn.toolCalls.length === 0) {
      if (records.length === 0 && !reminded && step < maxSteps) {
        reminded = true;
        messages.push(
          { role: 'assistant', content: turn.text },
          { role: 'user', content: REMINDER },
        );
        continue;
      }
      const answer = leaksPrompt(turn.text) ? PROMPT_REFUSAL : turn.text.trim();
      return {
        answer: answer || 'The model returned an empty answer.',
        tool_calls: records,
        steps: step,
      };
    }
    messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls });
    for (const call of turn.toolCalls) {
      const outcome = await runCall(toolbox, toolNames, call);
      const content =
        outcome.text.length > (options.maxToolResultChars ?? 20_000)
          ? `${outcome.text.slice(0, options.maxToolResultChars ?? 20_000)}… (truncated)`
          : outcome.text;
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content,
        isError: outcome.isError,
      });
      records.push({
        name: call.name,
        arguments: outcome.args ?? call.arguments,
        is_error: outcome.isError,
        result: parseOr(outcome.text),
      });
    }
  }
  return {
    answer: `I stopped after ${maxSteps} model turns without a final answer. Please ask a narrower question.`,
    tool_calls: records,
    steps: maxSteps,
  };
}

async function runCall(
  toolbox: Toolbox,
  toolNames: Set<string>,
  call: ToolCall,
): Promise<{ isError: boolean; text: string; args?: Record<string, unknown> }> {
  if (!toolNames.has(call.name)) {
    return {
      isError: true,
      text: `Unknown tool ${JSON.stringify(call.name)}. Available tools: ${[...toolNames].join(', ')}.`,
    };
  }
  const args = parseArguments(call.arguments);
  if (!args) {
    return {
      isError: true,
      text: `The arguments of ${call.name} were not a JSON object: ${String(call.arguments).slice(0, 200)}`,
    };
  }
  const outcome = await toolbox.call(call.name, args);
  return { ...outcome, args };
}

function parseArguments(raw: unknown): Record<string, unknown> | undefined {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

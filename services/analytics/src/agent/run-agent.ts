/**
 * The tool-calling loop: send the conversation and the tool declarations to the model;
 * run each function call it asks for through the MCP toolbox and return the result (or
 * the error: unknown tool, arguments that are not a JSON object, a failed tool); repeat
 * until the model answers in text or `maxSteps` model turns have passed. A model that
 * answers without calling any tool is reminded once of the rule. An answer quoting the
 * system prompt is replaced by a refusal.
 * Bounds: at most `maxToolCallsPerTurn` calls of one turn run (the rest are answered
 * with an error), and the whole request ends at `deadlineMs` (the model call in flight is
 * aborted: `AGENT_DEADLINE`). Tool results reach the model as data: a JSON object naming
 * the tool with its result under `data`, never as text it could read as instructions.
 */
import { analyticsErrors } from '../errors.js';
import type { ChatMessage, LlmProvider, ToolCall } from './llm-types.js';
import { AgentDeadlineError } from './providers/post-json.js';
import type { Toolbox } from './mcp-toolbox.js';
import { leaksPrompt, PROMPT_REFUSAL, SYSTEM_PROMPT } from './system-prompt.js';

/** How far one chat request may go. */
export interface AgentLimits {
  /** Most model turns. @defaultValue 6 */
  maxSteps?: number;
  /** Most tool calls of one model turn that are run. @defaultValue 8 */
  maxToolCallsPerTurn?: number;
  /** Time the whole request may take, model calls and tools together. @defaultValue 60000 */
  deadlineMs?: number;
}

export interface AgentOptions extends AgentLimits {
  provider: LlmProvider;
  toolbox: Toolbox;
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
  const deadlineMs = options.deadlineMs ?? 60_000;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new AgentDeadlineError(`deadline of ${deadlineMs} ms`)),
    deadlineMs,
  );
  try {
    return await loop();
  } catch (error) {
    if (error instanceof AgentDeadlineError || deadline.signal.aborted) {
      throw analyticsErrors.AGENT_DEADLINE({
        detail: `The agent did not finish within ${deadlineMs} ms; ask a narrower question`,
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }

  async function loop(): Promise<AgentAnswer> {
    for (let step = 1; step <= maxSteps; step++) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      const turn = await provider.complete({
        system: SYSTEM_PROMPT,
        messages,
        tools,
        signal: deadline.signal,
      });
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
      const maxCalls = options.maxToolCallsPerTurn ?? 8;
      for (const [index, call] of turn.toolCalls.entries()) {
        if (deadline.signal.aborted) throw deadline.signal.reason;
        const outcome =
          index < maxCalls
            ? await runCall(toolbox, toolNames, call)
            : {
                isError: true,
                text: `Not run: at most ${maxCalls} tool calls of one turn are run. Ask for fewer at once.`,
              };
        messages.push({
          role: 'tool',
          toolCallId: call.id,
          name: call.name,
          content: asData(call.name, outcome.text, options.maxToolResultChars ?? 20_000),
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
}

/**
 * A tool result as the model sees it: `{"tool": name, "data": result}` (the result parsed
 * when it is JSON, else its text), cut to `maxChars` of result text. Text in the data
 * (a category name, a SQL error) stays a value inside a JSON document.
 */
export function asData(tool: string, text: string, maxChars: number): string {
  if (text.length > maxChars) {
    return JSON.stringify({ tool, truncated: true, data: text.slice(0, maxChars) });
  }
  return JSON.stringify({ tool, data: parseOr(text) });
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

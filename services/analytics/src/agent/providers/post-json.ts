/**
 * POSTs JSON to an LLM API with a time limit and reads the JSON answer.
 * Errors: `LLM_TIMEOUT` (504) past the limit; `LLM_UNAVAILABLE` (502) for a network
 * failure (also one that cuts the answer off), a non-2xx status (the provider's message
 * is logged, not returned) or a body that is not JSON.
 */
import { analyticsErrors } from '../../errors.js';
import type { ProviderSettings } from '../llm-types.js';

/** The reason a request's deadline aborts its model call with (see `runAgent`). */
export class AgentDeadlineError extends Error {
  override readonly name = 'AgentDeadlineError';
}

export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  settings: ProviderSettings,
  signal?: AbortSignal,
): Promise<unknown> {
  const timeoutMs = settings.timeoutMs ?? 30_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await (settings.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
  } catch (error) {
    throw failed(error, timeoutMs, 'The language model could not be reached');
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw failed(error, timeoutMs, "The language model's answer was cut off");
  }
  if (!response.ok) {
    throw analyticsErrors.LLM_UNAVAILABLE({
      detail: `The language model answered with HTTP ${response.status}`,
      cause: new Error(text.slice(0, 500)),
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw analyticsErrors.LLM_UNAVAILABLE({
      detail: 'The language model answered with something that is not JSON',
      cause: error,
    });
  }
}

/** `LLM_TIMEOUT` when the time limit aborted the call, else `LLM_UNAVAILABLE` with `detail`. */
function failed(error: unknown, timeoutMs: number, detail: string): Error {
  if (error instanceof AgentDeadlineError) return error;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return analyticsErrors.LLM_TIMEOUT({
      detail: `The language model did not answer within ${timeoutMs} ms`,
      cause: error,
    });
  }
  return analyticsErrors.LLM_UNAVAILABLE({ detail, cause: error });
}

/** A provider answer missing what the wire format promises. */
export function malformedAnswer(what: string): Error {
  return analyticsErrors.LLM_UNAVAILABLE({
    detail: `The language model's answer was malformed: ${what}`,
  });
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Start-up that waits for its engines (issue 21 item 4): a service process that starts
 * while its database, Redis or broker is unreachable, or loses it half-way through its
 * migrations, retries the step with growing back-off (0.25 s doubling to 5 s) and logs
 * at warn what it waits for, instead of exiting; a supervisor restarting it in a loop
 * would only add noise. An error that retrying cannot mend (a bad URL, an auth failure,
 * a database that does not exist, a migration's SQL error) is thrown at once, so `main`
 * still exits with its message.
 */
import type { Logger } from 'pino';
import {
  isDatabaseUnavailable,
  isDiskFailure,
  isRedisUnavailable,
} from '../errors/dependency-unavailable.js';

export interface WaitForDependencyOptions {
  logger: Logger;
  /**
   * Names what an error says is unavailable (`the database`), or returns undefined for an
   * error that waiting cannot mend: that one is thrown at once.
   * @defaultValue unavailableDependency
   */
  unavailable?: (error: unknown) => string | undefined;
  /** @defaultValue 250 */
  initialDelayMs?: number;
  /** @defaultValue 5000 */
  maxDelayMs?: number;
}

/** The database or Redis, by the errors core already classifies as "down", else undefined. */
export function unavailableDependency(error: unknown): string | undefined {
  if (isDiskFailure(error)) return 'the disk under the database';
  if (isDatabaseUnavailable(error)) return 'the database';
  if (isRedisUnavailable(error)) return 'Redis';
  return undefined;
}

/**
 * Runs `step` (e.g. "open the database and apply its migrations") until it succeeds or
 * fails for a reason other than an unavailable dependency. The step must be safe to run
 * again from the start: it cleans up what a failed attempt opened.
 */
export async function waitForDependency<T>(
  step: string,
  run: () => Promise<T>,
  options: WaitForDependencyOptions,
): Promise<T> {
  const unavailable = options.unavailable ?? unavailableDependency;
  const maxDelay = options.maxDelayMs ?? 5000;
  let delay = options.initialDelayMs ?? 250;
  const since = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await run();
      if (attempt > 1)
        options.logger.warn(
          { step, attempts: attempt, waitedMs: Date.now() - since },
          `start-up goes on: ${step} succeeded after ${attempt} attempts`,
        );
      return result;
    } catch (error) {
      const dependency = unavailable(error);
      if (dependency === undefined) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      options.logger.warn(
        { step, dependency, reason, attempt, retryInMs: delay },
        `start-up waits for ${dependency} (${reason}): ${step} is tried again in ${delay} ms`,
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, maxDelay);
    }
  }
}

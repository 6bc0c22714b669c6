/** Bounded retries with exponential backoff, tunable per adapter (spec section 8). */
export interface RetryPolicy {
  /** Attempts in all, the first included. @defaultValue 3 */
  maxAttempts: number;
  /** Wait after the first failed attempt. @defaultValue 200 */
  initialBackoffMs: number;
  /** Growth of the wait per attempt. @defaultValue 2 */
  multiplier: number;
  /** Upper bound of one wait. @defaultValue 5000 */
  maxBackoffMs: number;
  /**
   * While the target is down (connection refused, timeout, 5xx, transaction could not
   * open), retries go on past `maxAttempts` for this long from the first failure: the
   * consumer holds its position with growing back-off instead of dead-lettering
   * everything in flight, and resumes where it stopped. 0: no outage allowance.
   * @defaultValue 0 (the platform sets `*_OUTAGE_BUDGET_MS`, default 5 minutes)
   */
  outageBudgetMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  initialBackoffMs: 200,
  multiplier: 2,
  maxBackoffMs: 5000,
  outageBudgetMs: 0,
});

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): Readonly<RetryPolicy> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    throw new RangeError('maxAttempts must be >= 1');
  return Object.freeze(policy);
}

/** Wait before attempt `attempt + 1` after `attempt` failed (1-based). */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(
    policy.maxBackoffMs,
    policy.initialBackoffMs * policy.multiplier ** (attempt - 1),
  );
}

/**
 * Fixed-window rate limiter on a `CounterStore`, and the headers that report it:
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds) and,
 * when refused, `Retry-After` (seconds).
 */
import type { CounterStore } from './counter-store.js';

export interface RateLimiterOptions {
  /** Hits allowed per window. */
  limit: number;
  /** Length of a window. */
  windowSeconds: number;
  /** Namespace of this limit's counters, such as `render-submit`. */
  name: string;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  /** Hits still allowed in this window. */
  remaining: number;
  /** When the window ends, Unix seconds. */
  resetAtSeconds: number;
  /** Seconds to wait before retrying; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  readonly name: string;
  /** Counts one hit for `key` (a client address, an API key...) and says whether it is allowed. */
  check(key: string): Promise<RateLimitResult>;
}

export function createRateLimiter(store: CounterStore, options: RateLimiterOptions): RateLimiter {
  const { limit, windowSeconds, name } = options;
  if (!Number.isInteger(limit) || limit < 0)
    throw new RangeError(`rate limit ${name}: limit must be an integer >= 0`);
  if (!(windowSeconds > 0)) throw new RangeError(`rate limit ${name}: windowSeconds must be > 0`);
  return {
    name,
    async check(key: string): Promise<RateLimitResult> {
      const { count, resetAtMs, nowMs } = await store.increment(`${name}:${key}`, windowSeconds);
      const allowed = count <= limit;
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - count),
        resetAtSeconds: Math.ceil(resetAtMs / 1000),
        retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)),
      };
    },
  };
}

/** The response headers for a check; `Retry-After` only when refused. */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(result.remaining),
    'X-RateLimit-Reset': String(result.resetAtSeconds),
  };
  if (!result.allowed) headers['Retry-After'] = String(result.retryAfterSeconds);
  return headers;
}

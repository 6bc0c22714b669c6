/**
 * The per-address rate limits of submissions and skin uploads: one check that answers
 * 429 with the spec's detail and the X-RateLimit headers, whichever limiter it is given.
 */
import { rateLimitHeaders, type RateLimiter } from '@platform/core';
import { renderErrors } from '../errors.js';

/** Spends one unit of `address`'s budget; returns the X-RateLimit headers, or throws 429. */
export async function checkRateLimit(
  limiter: RateLimiter,
  address: string,
): Promise<Record<string, string>> {
  const result = await limiter.check(address);
  const headers = rateLimitHeaders(result);
  if (!result.allowed) {
    throw renderErrors.RATE_LIMITED({
      detail: `Rate limit exceeded: ${result.limit} per 1 minute`,
      headers,
    });
  }
  return headers;
}

/**
 * Core pieces not yet exported by `@platform/core`'s entry point when this was written
 * (storage and counter factories, rate limiter, signed-object route). Everything in the
 * service imports them from here, so switching to the package entry is a one-file change.
 */
export { createRateLimiter, rateLimitHeaders, type RateLimiter, type RateLimitResult } from '../../../packages/core/src/counters/rate-limiter.js';
export { createCounterStore } from '../../../packages/core/src/counters/create-counter-store.js';
export { createObjectStore } from '../../../packages/core/src/storage/create-object-store.js';
export { registerSignedObjectRoute } from '../../../packages/core/src/storage/signed-object-route.js';

/** What the HTTP routes share: engines, limits, rate limiters and the address resolver. */
import {
  type ClientAddressResolver,
  type CounterStore,
  type Logger,
  type ObjectStore,
  type SqlDatabase,
} from '@platform/core';
import { createRateLimiter, type RateLimiter } from '@platform/core';
import type { RenderSettings } from './config.js';

export interface RenderContext {
  db: SqlDatabase;
  store: ObjectStore;
  counters: CounterStore;
  settings: RenderSettings;
  logger: Logger;
  clientAddress: ClientAddressResolver;
  limiters: {
    /** v1 and legacy submissions share this one. */
    render: RateLimiter;
    skinUpload: RateLimiter;
    legacySkinUpload: RateLimiter;
  };
}

export function createLimiters(
  counters: CounterStore,
  settings: RenderSettings,
): RenderContext['limiters'] {
  return {
    render: createRateLimiter(counters, {
      name: 'render-submit',
      limit: settings.renderRateLimit,
      windowSeconds: 60,
    }),
    skinUpload: createRateLimiter(counters, {
      name: 'render-skin-upload',
      limit: settings.skinUploadRateLimit,
      windowSeconds: 60,
    }),
    legacySkinUpload: createRateLimiter(counters, {
      name: 'render-legacy-skin-upload',
      limit: settings.legacySkinUploadRateLimit,
      windowSeconds: 60,
    }),
  };
}

/**
 * What the HTTP routes share: engines, limits, rate limiters, the address resolver, and
 * the admission guards (upload gate, replay decoder, skin catalog).
 */
import {
  createRateLimiter,
  type ClientAddressResolver,
  type CounterStore,
  type Logger,
  type ObjectStore,
  type RateLimiter,
  type SqlDatabase,
} from '@platform/core';
import { createReplayDecoder, type ReplayDecoder } from './admission/replay-decoder.js';
import { createUploadGate, type UploadGate } from './admission/upload-gate.js';
import type { RenderSettings } from './config.js';
import { createSkinCatalog, type SkinCatalog } from './skins/skin-catalog.js';
import { createJobWatcher, type JobWatcher } from './events/job-watcher.js';
import { createFinishedJobCache, type FinishedJobCache } from './jobs/finished-job-cache.js';
import { createAdmissionLooks, type AdmissionLooks } from './admission/admission-looks.js';
import { createAdmissions, type Admissions } from './admission/admissions.js';
import { createJobReader, type JobReader } from './jobs/job-reader.js';
import { createLiveJobCache, type LiveJobCache } from './jobs/live-job-cache.js';

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
    /** v1 skin uploads: the shared skin budget, at the v1 limit. */
    skinUpload: RateLimiter;
    /** Legacy skin uploads: the same budget (one counter), at the legacy limit. */
    legacySkinUpload: RateLimiter;
  };
  uploads: UploadGate;
  replays: ReplayDecoder;
  skins: SkinCatalog;
  /** The live state of jobs watched by event streams. */
  jobEvents: JobWatcher;
  /** Finished jobs read recently, answered without a database round trip. */
  finishedJobs: FinishedJobCache;
  /** Jobs read recently, active ones too, where every change is seen first (embedded engine). */
  liveJobs: LiveJobCache;
  /** Reads of jobs the caches lack, several to a statement. */
  jobReads: JobReader;
  /** Admission's first looks, several to a statement. */
  admissionLooks: AdmissionLooks;
  /** Admission's transactions, several to a statement. */
  admissions: Admissions;
}

export type RenderContextParts = Pick<
  RenderContext,
  'db' | 'store' | 'counters' | 'settings' | 'logger' | 'clientAddress'
>;

/** The context from its engines and settings; `close()` ends the decode threads. */
export function createRenderContext(parts: RenderContextParts): RenderContext & {
  close(): Promise<void>;
} {
  const { settings } = parts;
  const replays = createReplayDecoder({
    threads: settings.decodeThreads,
    inlineMaxBytes: settings.inlineDecodeMaxBytes,
    timeoutMs: 15_000,
  });
  const jobEvents = createJobWatcher(parts.db, { intervalMs: settings.eventIntervalMs });
  const liveJobs = createLiveJobCache(parts.db, parts.logger);
  return {
    ...parts,
    jobEvents,
    finishedJobs: createFinishedJobCache(),
    liveJobs,
    jobReads: createJobReader(parts.db),
    admissionLooks: createAdmissionLooks(parts.db, {
      queued: settings.maxQueued,
      rendering: settings.maxRendering,
    }),
    admissions: createAdmissions(parts.db, {
      maxActive: settings.maxActivePerAddress,
      dailyQuota: settings.dailyRenderQuota,
    }),
    limiters: createLimiters(parts.counters, settings),
    uploads: createUploadGate({
      maxConcurrent: settings.maxConcurrentUploads,
      maxPerAddress: settings.maxUploadsPerAddress,
    }),
    replays,
    skins: createSkinCatalog(parts.store),
    close: async () => {
      jobEvents.close();
      await liveJobs.close();
      await replays.close();
    },
  };
}

/** The skin limiters count on one counter, so v1 and legacy uploads spend one budget. */
const SKIN_BUDGET = 'render-skin-upload';

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
      name: SKIN_BUDGET,
      limit: settings.skinUploadRateLimit,
      windowSeconds: 60,
    }),
    legacySkinUpload: createRateLimiter(counters, {
      name: SKIN_BUDGET,
      limit: settings.legacySkinUploadRateLimit,
      windowSeconds: 60,
    }),
  };
}

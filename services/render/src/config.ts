/**
 * The render service's environment: the core variables plus its port, limits, timeouts
 * and pipeline switches. Parsed once in `main.ts`; everything below receives the frozen
 * `RenderSettings` it derives.
 */
import {
  coreEnvSchema,
  positiveIntVar,
  portVar,
  booleanVar,
  urlVar,
  listVar,
} from '@platform/core';
import { z } from 'zod';

const optionalPositiveInt = z.coerce
  .number({ message: 'expected a positive integer' })
  .int({ message: 'expected a positive integer' })
  .positive({ message: 'expected a positive integer' })
  .optional();

export const renderEnvSchema = coreEnvSchema.extend({
  /** HTTP port. @defaultValue 8727 */
  PORT: portVar(8727),
  /** Largest replay upload. @defaultValue 50 */
  MAX_REPLAY_SIZE_MB: positiveIntVar(50),
  /** Largest skin upload. @defaultValue 200 */
  MAX_SKIN_SIZE_MB: positiveIntVar(200),
  /** Largest total uncompressed size of a skin archive. @defaultValue 1024 */
  MAX_SKIN_UNCOMPRESSED_MB: positiveIntVar(1024),
  /** Queued jobs at which submissions get 503. @defaultValue 100 */
  MAX_QUEUED: positiveIntVar(100),
  /** Downloading + rendering jobs at which submissions get 503. @defaultValue 20 */
  MAX_RENDERING: positiveIntVar(20),
  /** Submissions per minute per address (v1 and legacy share it). @defaultValue 5 */
  RENDER_RATE_LIMIT: positiveIntVar(5),
  /** v1 skin uploads per minute per address. @defaultValue 2 */
  SKIN_UPLOAD_RATE_LIMIT: positiveIntVar(2),
  /** Legacy skin uploads per minute per address. @defaultValue 5 */
  LEGACY_SKIN_UPLOAD_RATE_LIMIT: positiveIntVar(5),
  /** Uploads (replays and skins) read at once by this process; more get 503. @defaultValue 32 */
  MAX_CONCURRENT_UPLOADS: positiveIntVar(32),
  /** Uploads read at once for one client address; more get 429. @defaultValue 2 */
  MAX_UPLOADS_PER_ADDRESS: positiveIntVar(2),
  /** A request not received completely in this time is cut off. @defaultValue 120 */
  REQUEST_TIMEOUT_SECONDS: positiveIntVar(120),
  /** An upload that sends nothing for this long is cut off. @defaultValue 15 */
  BODY_IDLE_TIMEOUT_SECONDS: positiveIntVar(15),
  /** How long a submission whose commit is in doubt (its answer lost) asks whether its job is stored before answering 503 with the job's id. @defaultValue 10 */
  IN_DOUBT_WAIT_SECONDS: positiveIntVar(10),
  /** Threads decoding large replays off the event loop. @defaultValue 1 */
  DECODE_THREADS: positiveIntVar(1),
  /** Days a finished job's video, thumbnail, log and replay are kept; then the job answers 410. @defaultValue 30 */
  ARTIFACT_RETENTION_DAYS: positiveIntVar(30),
  /** Submissions accepted per address in any 24 hours. @defaultValue 50 */
  DAILY_RENDER_QUOTA: positiveIntVar(50),
  /** Identical submissions reuse a finished video (turn off after a renderer change). @defaultValue true */
  REUSE_RENDERS: booleanVar(true),
  /** Live event streams (`/v1/jobs/{id}/events`) served at once by this process. @defaultValue 1000 */
  MAX_EVENT_STREAMS: positiveIntVar(1000),
  /** Prefix of this deployment's Redis keys (task queue, counters), so deployments can share one Redis. @defaultValue render */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'expected 1-64 of A-Za-z0-9_.-' })
    .default('render'),
  /** Run the dispatcher in this process. @defaultValue true */
  RUN_DISPATCHER: booleanVar(true),
  /** Run a worker in this process. @defaultValue true */
  RUN_WORKER: booleanVar(true),
  /** Run the reaper in this process. @defaultValue true */
  RUN_REAPER: booleanVar(true),
  /** Jobs a worker renders at once. @defaultValue 1 */
  WORKER_CONCURRENCY: positiveIntVar(1),
  /** A render running longer is aborted and the job fails. @defaultValue 1800 */
  RENDER_TIMEOUT_SECONDS: positiveIntVar(1800),
  /** Downloading/rendering jobs without a heartbeat for this long are failed by the reaper. @defaultValue 300 */
  STUCK_JOB_SECONDS: positiveIntVar(300),
  /** Queued jobs older than this with no pending dispatch are dispatched again. @defaultValue 600 */
  REDISPATCH_AFTER_SECONDS: positiveIntVar(600),
  /** Dispatches of one job before the reaper gives up on it. @defaultValue 3 */
  MAX_DISPATCHES: positiveIntVar(3),
  /** Folders of `.osu` files and `.osz` archives, searched by MD5. @defaultValue none */
  BEATMAPS_DIR: listVar().optional(),
  /** Mirror serving a beatmap by MD5 (`{md5}` in the URL is replaced, else `/<md5>` is appended): its `.osu`, or its whole set as an `.osz`. */
  BEATMAP_MIRROR_URL: urlVar(['http', 'https']).optional(),
  /** Shared secret of the remote-worker callback (HMAC-SHA256); unset: the callback route refuses. */
  CALLBACK_SECRET: z.string().min(16, { message: 'expected at least 16 characters' }).optional(),
  /** ffmpeg binary the worker runs. @defaultValue ffmpeg on PATH, else the one bundled with the package */
  FFMPEG_PATH: z.string().min(1).optional(),
  /** ffprobe binary. @defaultValue beside FFMPEG_PATH, else on PATH, else bundled */
  FFPROBE_PATH: z.string().min(1).optional(),
  /** Video width × height override (e.g. for small test renders). @defaultValue from resolution */
  RENDER_WIDTH: optionalPositiveInt,
  RENDER_HEIGHT: optionalPositiveInt,
});

export type RenderEnv = z.output<typeof renderEnvSchema>;

/** Limits and switches the HTTP layer and the pipeline read. */
export interface RenderSettings {
  /** @defaultValue 50 */
  maxReplaySizeMb: number;
  /** @defaultValue 200 */
  maxSkinSizeMb: number;
  /** @defaultValue 1024 */
  maxSkinUncompressedMb: number;
  /** @defaultValue 100 */
  maxQueued: number;
  /** @defaultValue 20 */
  maxRendering: number;
  /** @defaultValue 5 */
  renderRateLimit: number;
  /** @defaultValue 2 */
  skinUploadRateLimit: number;
  /** @defaultValue 5 */
  legacySkinUploadRateLimit: number;
  /** @defaultValue 32 */
  maxConcurrentUploads: number;
  /** @defaultValue 2 */
  maxUploadsPerAddress: number;
  /** Whole-request receive timeout. @defaultValue 120000 */
  requestTimeoutMs: number;
  /** Silence allowed while an upload body is read. @defaultValue 15000 */
  bodyIdleTimeoutMs: number;
  /** How long a submission whose commit is in doubt asks whether its job is stored. @defaultValue 10000 */
  inDoubtWaitMs: number;
  /** @defaultValue 1 */
  decodeThreads: number;
  /** Replays up to this size are decoded in place, larger ones on a decode thread. @defaultValue 32768 */
  inlineDecodeMaxBytes: number;
  /** Days finished jobs keep their artifacts. @defaultValue 30 */
  artifactRetentionDays: number;
  /** Jobs accepted per address in any 24 hours. @defaultValue 50 */
  dailyRenderQuota: number;
  /** @defaultValue 1000 */
  maxEventStreams: number;
  /** How often watched jobs are read for their event streams. @defaultValue 500 */
  eventIntervalMs: number;
  /** Active (queued, downloading, rendering) jobs allowed per address. @defaultValue 2 */
  maxActivePerAddress: number;
  /** Shared secret for the remote-worker callback. @defaultValue undefined (callback disabled) */
  callbackSecret?: string | undefined;
  /** Accepted clock skew of a callback signature. @defaultValue 300 */
  callbackToleranceSeconds: number;
  /** Absolute base URL for OpenGraph tags. @defaultValue the request's host */
  publicBaseUrl?: string | undefined;
}

export const DEFAULT_SETTINGS: Readonly<RenderSettings> = Object.freeze({
  maxReplaySizeMb: 50,
  maxSkinSizeMb: 200,
  maxSkinUncompressedMb: 1024,
  maxQueued: 100,
  maxRendering: 20,
  renderRateLimit: 5,
  skinUploadRateLimit: 2,
  legacySkinUploadRateLimit: 5,
  maxConcurrentUploads: 32,
  maxUploadsPerAddress: 2,
  requestTimeoutMs: 120_000,
  bodyIdleTimeoutMs: 15_000,
  inDoubtWaitMs: 10_000,
  decodeThreads: 1,
  inlineDecodeMaxBytes: 32 * 1024,
  maxActivePerAddress: 2,
  artifactRetentionDays: 30,
  dailyRenderQuota: 50,
  maxEventStreams: 1000,
  eventIntervalMs: 500,
  callbackToleranceSeconds: 300,
});

export function settingsFromEnv(env: RenderEnv): RenderSettings {
  return {
    ...DEFAULT_SETTINGS,
    maxReplaySizeMb: env.MAX_REPLAY_SIZE_MB,
    maxSkinSizeMb: env.MAX_SKIN_SIZE_MB,
    maxSkinUncompressedMb: env.MAX_SKIN_UNCOMPRESSED_MB,
    maxQueued: env.MAX_QUEUED,
    maxRendering: env.MAX_RENDERING,
    renderRateLimit: env.RENDER_RATE_LIMIT,
    skinUploadRateLimit: env.SKIN_UPLOAD_RATE_LIMIT,
    legacySkinUploadRateLimit: env.LEGACY_SKIN_UPLOAD_RATE_LIMIT,
    maxConcurrentUploads: env.MAX_CONCURRENT_UPLOADS,
    maxUploadsPerAddress: env.MAX_UPLOADS_PER_ADDRESS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_SECONDS * 1000,
    bodyIdleTimeoutMs: env.BODY_IDLE_TIMEOUT_SECONDS * 1000,
    inDoubtWaitMs: env.IN_DOUBT_WAIT_SECONDS * 1000,
    decodeThreads: env.DECODE_THREADS,
    artifactRetentionDays: env.ARTIFACT_RETENTION_DAYS,
    dailyRenderQuota: env.DAILY_RENDER_QUOTA,
    maxEventStreams: env.MAX_EVENT_STREAMS,
    callbackSecret: env.CALLBACK_SECRET,
    publicBaseUrl: env.PUBLIC_BASE_URL,
  };
}

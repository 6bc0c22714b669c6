/**
 * Admission of a validated submission, steps 4–10 of the spec: the per-address rate
 * limit (429), global queue depth and rendering capacity (503), the two-active-jobs rule
 * (429) and the daily quota (429), then the replay upload to `replays/` (500 on failure, before anything is
 * written) and, under the per-address advisory lock, the active-job count again with the
 * job row and its outbox event in one transaction (one statement, shared by the
 * submissions of a turn: admissions.ts). The upload comes before the
 * transaction so no database session is held during it and no event can exist without
 * its replay; a refused or failed transaction deletes the uploaded replay.
 *
 * A transaction whose answer was lost may have committed (issue 21: a connection broken
 * after the statement was sent, or PGlite's WAL sync failing after the commit). Then
 * admission asks whether the job is stored, for up to `inDoubtWaitMs` while the database
 * cannot answer (core's `askAfterLostAnswer`, as integration's intake does): stored, it
 * is accepted (202: the reopened PGlite synced its folder, PostgreSQL committed it);
 * absent, the 503 "Nothing was stored" is true and the replay is deleted; not asked in
 * time, the answer is 503 `DATABASE_UNAVAILABLE` saying the job may have been stored,
 * with its `job_id` and `Location` to poll (`GET /v1/jobs/{id}`: 200 once the database
 * answers if it was, 404 if not), and the replay is kept (the job may run).
 */
import { randomUUID } from 'node:crypto';
import {
  advisoryLockKey,
  askAfterLostAnswer,
  isDiskFailure,
  mayHaveCommitted,
  RETRY_AFTER_SECONDS,
  type Logger,
  type ObjectStore,
} from '@platform/core';
import type { RenderSettings } from '../config.js';
import type { RateLimiter } from '@platform/core';
import { checkRateLimit } from '../limits/rate-limits.js';
import { renderErrors } from '../errors.js';
import type { AddressUsage } from '../jobs/job-store.js';
import type { AdmissionLooks } from './admission-looks.js';
import type { Admissions } from './admissions.js';
import { artifactKeys } from '../jobs/job-view.js';
import { renderFingerprint } from '../reuse/fingerprint.js';
import type { ValidatedRender } from './validate-render-form.js';

export interface AdmissionDeps {
  store: ObjectStore;
  settings: RenderSettings;
  limiter: RateLimiter;
  /** Admission's first look, shared by the submissions of a turn. */
  looks: AdmissionLooks;
  /** Admission's transaction, shared by the submissions of a turn. */
  admissions: Admissions;
  logger?: Logger;
  /** How long a submission whose commit is in doubt asks whether its job is stored. */
  inDoubtWaitMs?: number;
}

export interface Admitted {
  jobId: string;
  /** X-RateLimit-* headers of the accepted request. */
  headers: Record<string, string>;
}

export async function admitRender(
  deps: AdmissionDeps,
  address: string,
  request: ValidatedRender,
): Promise<Admitted> {
  const { store, settings } = deps;
  const headers = await checkRateLimit(deps.limiter, address);

  const { load, usage } = await deps.looks.look(address);
  if (load.queued >= settings.maxQueued)
    throw renderErrors.RENDER_QUEUE_FULL({ headers: { 'Retry-After': '30' } });
  if (load.rendering >= settings.maxRendering)
    throw renderErrors.RENDER_CAPACITY({ headers: { 'Retry-After': '30' } });

  const jobId = randomUUID();
  const replayKey = artifactKeys(jobId).replay;
  // Two per-address rules from one query: active jobs, then jobs in the last 24 hours.
  const refuse = (usage: AddressUsage) => {
    if (usage.active >= settings.maxActivePerAddress)
      return renderErrors.RENDER_TOO_MANY_ACTIVE({
        detail: `You already have ${settings.maxActivePerAddress} active render jobs.`,
        headers,
      });
    if (usage.lastDay >= settings.dailyRenderQuota) {
      const resetsAt = usage.lastDayResetsAt?.getTime() ?? Date.now();
      const retryAfter = Math.max(1, Math.ceil((resetsAt - Date.now()) / 1000));
      return renderErrors.DAILY_QUOTA({
        detail: `Daily render quota exceeded: ${settings.dailyRenderQuota} per day.`,
        headers: { ...headers, 'Retry-After': String(retryAfter) },
      });
    }
    return undefined;
  };
  // A cheap look first, so a client at its limit is refused before any upload.
  const early = refuse(usage);
  if (early) throw early;
  try {
    // Durable before the job row commits: a 202 survives a power loss with its replay.
    await store.put(replayKey, request.data, {
      contentType: 'application/octet-stream',
      durable: true,
    });
  } catch (error) {
    deps.logger?.error({ err: error, jobId }, 'replay upload failed; no job written');
    // A full disk is the machine's state, not a bug: 503 with a time to come back.
    if (isDiskFailure(error))
      throw renderErrors.STORAGE_UNAVAILABLE({
        cause: error,
        headers: { ...headers, 'Retry-After': String(RETRY_AFTER_SECONDS) },
      });
    throw renderErrors.RENDER_STORAGE_FAILED({ cause: error });
  }
  try {
    const admitted = await deps.admissions.admit({
      lockKey: advisoryLockKey(`render-address:${address}`),
      job: {
        id: jobId,
        skin: request.skin,
        options: request.options,
        clientIp: address,
        replayKey,
        replayInfo: request.replay,
        fingerprint: renderFingerprint(request.data, request.skin, request.options),
      },
    });
    if (!admitted.inserted) throw refuse(admitted.usage) ?? new Error('admission refused');
  } catch (error) {
    if (mayHaveCommitted(error)) {
      const answer = await askAfterLostAnswer(
        async () => ((await deps.admissions.stored(jobId)) ? true : undefined),
        deps.inDoubtWaitMs,
      );
      if (answer.stored === true) {
        deps.logger?.warn({ err: error, jobId }, 'admission answer lost; the job is stored');
        return { jobId, headers };
      }
      if (answer.stored === 'unknown') {
        deps.logger?.error({ err: error, jobId }, 'admission in doubt; the job may be stored');
        throw inDoubt(jobId, headers, error);
      }
    }
    await store.delete(replayKey).catch(() => undefined);
    throw error;
  }
  return { jobId, headers };
}

/** The 503 of a submission whose job may have been stored: its id, to poll. */
function inDoubt(jobId: string, headers: Record<string, string>, cause: unknown) {
  const status = `/v1/jobs/${jobId}`;
  return renderErrors.DATABASE_UNAVAILABLE({
    detail: `The database failed while storing this job, and it cannot yet tell whether it was stored. Job ${jobId} may have been stored: check ${status} (404 means it was not) before submitting again.`,
    cause,
    headers: { ...headers, 'Retry-After': String(RETRY_AFTER_SECONDS), Location: status },
    body: { job_id: jobId, links: { status } },
  });
}

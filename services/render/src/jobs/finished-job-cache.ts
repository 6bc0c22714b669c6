/**
 * Finished jobs (completed or failed, not removed) held in memory for a short while, so
 * that status reads of them (a player page, a bot checking its render) cost no database
 * round trip. A finished job's row no longer changes, except when it is removed
 * (deleted, expired): every removal made by this process empties the cache at once
 * (`forgetFinishedJobs`, called by `markRemoved`), and a removal made by another process
 * is seen here within `ttlMs`. Active jobs are never cached: their progress moves.
 */
import type { JobRow } from './job-store.js';

interface Entry {
  job: JobRow;
  at: number;
  epoch: number;
  /** The v1 view as JSON, made on first use. */
  v1?: string;
}

/** Bumped by every removal in this process; entries of an older epoch are dropped. */
let removalEpoch = 0;

/** Called on every removal: no cached view outlives a removal made by this process. */
export function forgetFinishedJobs(): void {
  removalEpoch += 1;
}

export interface FinishedJobCacheOptions {
  /** @defaultValue 5000 */
  ttlMs?: number;
  /** @defaultValue 10000 */
  maxEntries?: number;
  /** @defaultValue `Date.now` */
  now?: () => number;
}

export interface FinishedJobCache {
  get(id: string): JobRow | undefined;
  /** Keeps `job` when it is finished and not removed; anything else is ignored. */
  offer(job: JobRow): void;
  /** The cached v1 JSON of a job returned by `get`, made once with `render`. */
  v1Json(job: JobRow, render: (job: JobRow) => string): string;
}

export function createFinishedJobCache(options: FinishedJobCacheOptions = {}): FinishedJobCache {
  const ttlMs = options.ttlMs ?? 5000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const fresh = (entry: Entry) => entry.epoch === removalEpoch && now() - entry.at < ttlMs;
  return {
    get(id) {
      const entry = entries.get(id);
      if (!entry) return undefined;
      if (fresh(entry)) return entry.job;
      entries.delete(id);
      return undefined;
    },
    offer(job) {
      if ((job.status !== 'completed' && job.status !== 'failed') || job.removal) return;
      entries.delete(job.id);
      // Oldest first in insertion order: the first key is the one to drop.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(job.id, { job, at: now(), epoch: removalEpoch });
    },
    v1Json(job, render) {
      const entry = entries.get(job.id);
      if (!entry || entry.job !== job) return render(job);
      entry.v1 ??= render(job);
      return entry.v1;
    },
  };
}

/**
 * Every job read recently, active ones included, held in memory where this process sees
 * each change before it could read the row again: a database with one session (the
 * embedded engine) is written by this process only, and it delivers the trigger's
 * notification of a change (migration 005) before its next statement runs. An entry is
 * dropped when its job's notification arrives, and a row read while any notification
 * arrived is not kept (the change may have come after the read), so no answer from
 * here is older than the database's. Nothing is cached on an engine with concurrent
 * sessions (PostgreSQL): other instances write there, and their notifications would
 * arrive after their commits; finished jobs have their own short-lived cache for it.
 */
import type { Logger, SqlDatabase, Unlisten } from '@platform/core';
import type { JobRow } from './job-store.js';

export const JOB_CHANGED_CHANNEL = 'render_job_changed';

export interface LiveJobCache {
  get(id: string): JobRow | undefined;
  /** Where a read starts: give it back to `offer` with the row it read. */
  mark(): number;
  /** Keeps `job` (read since `mark`) unless a change was announced meanwhile or it is removed. */
  offer(job: JobRow, mark: number): void;
  /** The cached v1 JSON of a job returned by `get`, made once with `render`. */
  v1Json(job: JobRow, render: (job: JobRow) => string): string | undefined;
  /** Stops listening; the cache answers nothing afterwards. */
  close(): Promise<void>;
}

interface Entry {
  job: JobRow;
  v1?: string;
}

export interface LiveJobCacheOptions {
  /** @defaultValue 10000 */
  maxEntries?: number;
}

/**
 * The cache for `db`: empty and inert on an engine with concurrent sessions; on the
 * embedded engine it starts keeping rows once the session announces changes and this
 * process listens (asynchronously, right after creation).
 */
export function createLiveJobCache(
  db: SqlDatabase,
  logger: Logger,
  options: LiveJobCacheOptions = {},
): LiveJobCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  // Bumped by every announced change: a read that saw a bump may hold an older row.
  let changes = 0;
  let live = false;
  let closed = false;
  let unlisten: Unlisten | undefined;

  const started =
    db.supportsConcurrentSessions || !db.supportsListenNotify
      ? Promise.resolve()
      : (async () => {
          const stop = await db.listen(JOB_CHANGED_CHANNEL, (id) => {
            changes += 1;
            entries.delete(id);
          });
          await db.query(`SELECT set_config('render.announce_job_changes', 'on', false)`);
          if (closed) await stop();
          else {
            unlisten = stop;
            // Reads begun before changes were announced may hold an older row: not kept.
            changes += 1;
            live = true;
          }
        })().catch((error: unknown) => {
          logger.warn(
            { err: error },
            'job changes are not announced: active jobs are read from the database',
          );
        });

  return {
    get(id) {
      return live ? entries.get(id)?.job : undefined;
    },
    mark() {
      return changes;
    },
    offer(job, mark) {
      if (!live || mark !== changes || job.removal) return;
      entries.delete(job.id);
      // Oldest first in insertion order: the first key is the one to drop.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(job.id, { job });
    },
    v1Json(job, render) {
      const entry = entries.get(job.id);
      if (!entry || entry.job !== job) return undefined;
      entry.v1 ??= render(job);
      return entry.v1;
    },
    async close() {
      closed = true;
      live = false;
      entries.clear();
      await started;
      // The database may be closed first (its listeners end with it).
      await unlisten?.().catch(() => undefined);
    },
  };
}

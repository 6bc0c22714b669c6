/**
 * Every job read recently, active ones included, held in memory and never answered when
 * older than the database. A trigger announces every change or deletion of a job row
 * (`NOTIFY render_job_changed`, its id; migration 006, in every session of every
 * instance), and an entry is dropped when its job's notification arrives; a row read
 * while any notification arrived is not kept (the change may have come after the read).
 *
 * What makes a held row safe to answer differs by engine:
 * - PGlite (one session, in this process) delivers a notification before its next
 *   statement runs, so a held row is always current.
 * - PostgreSQL delivers another session's notification some time after its commit. So
 *   before answering from memory, `lookup` waits for `db.syncNotifications()`: one round
 *   trip on the LISTEN session, after which every notification of a transaction that
 *   committed before the read arrived has been handled. One such round trip serves every
 *   read that arrived before it started (reads arriving meanwhile wait for the next), so
 *   its cost is shared. If the LISTEN session was lost (notifications may have been
 *   missed) the cache is emptied; while it is down, reads go to the database.
 */
import type { Logger, SqlDatabase, Unlisten } from '@platform/core';
import type { JobRow } from './job-store.js';

export const JOB_CHANGED_CHANNEL = 'render_job_changed';

export interface LiveJobCache {
  /** The held row for `id`, current as of the database when it resolves (or undefined). */
  lookup(id: string): Promise<JobRow | undefined>;
  /** The held row as it is, without waiting for notifications (for tests). */
  get(id: string): JobRow | undefined;
  /** Where a read starts: give it back to `offer` with the row it read. */
  mark(): number;
  /** Keeps `job` (read since `mark`) unless a change was announced meanwhile or it is removed. */
  offer(job: JobRow, mark: number): void;
  /** The cached v1 JSON of a job returned by `lookup`, made once with `render`. */
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
 * Runs `sync` for callers, one run at a time; a caller waits for a run that starts after
 * its call. A run starts at the end of the event loop's turn (setImmediate), so every
 * read parsed in that turn shares it, and never while another runs (callers meanwhile
 * share the next).
 */
function sharedSync(sync: () => Promise<number>): () => Promise<number> {
  let running: Promise<unknown> = Promise.resolve();
  let next: Promise<number> | undefined;
  return () => {
    next ??= running
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        next = undefined;
        const run = sync();
        running = run.catch(() => undefined);
        return run;
      });
    return next;
  };
}

/**
 * The cache for `db`: inert where LISTEN/NOTIFY is missing; otherwise it starts keeping
 * rows once this process listens (asynchronously, right after creation).
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
  // The LISTEN session's epoch the entries were kept under (PostgreSQL).
  let epoch: number | undefined;
  const mustSync = db.supportsConcurrentSessions;
  const sync = sharedSync(() => db.syncNotifications());

  const forgetAll = () => {
    entries.clear();
    changes += 1;
  };

  const started = !db.supportsListenNotify
    ? Promise.resolve()
    : (async () => {
        const stop = await db.listen(JOB_CHANGED_CHANNEL, (id) => {
          changes += 1;
          entries.delete(id);
        });
        if (closed) await stop();
        else {
          unlisten = stop;
          // Reads begun before this process listened may hold an older row: not kept.
          changes += 1;
          live = true;
        }
      })().catch((error: unknown) => {
        logger.warn(
          { err: error },
          'job changes are not heard: active jobs are read from the database',
        );
      });

  return {
    async lookup(id) {
      // Nothing held: the database answers (its row is current), with no sync to wait for.
      if (!live || !entries.has(id)) return undefined;
      if (mustSync) {
        let current: number;
        try {
          current = await sync();
        } catch {
          // No LISTEN session: nothing held can be vouched for; the database answers.
          forgetAll();
          return undefined;
        }
        if (current !== epoch) {
          // Kept before the first sync, or under a lost session (notifications may have
          // been missed): start over.
          forgetAll();
          epoch = current;
          return undefined;
        }
        // The entry may have been dropped by a notification the sync brought in.
      }
      return entries.get(id)?.job;
    },
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

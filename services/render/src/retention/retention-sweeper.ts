/**
 * Retention: a finished job (completed or failed) keeps its video, thumbnail, log and
 * replay for `retentionDays` after it finished; then the sweeper removes them and the job
 * answers 410. Tombstones (expired, deleted, cancelled) are forgotten `retentionDays`
 * after their removal (then 404), and a removal whose storage delete failed is retried.
 */
import type { Logger, ObjectStore, SqlDatabase } from '@platform/core';
import type { JobRow } from '../jobs/job-store.js';
import { purgeArtifacts, removeJob } from './job-removal.js';

export interface RetentionOptions {
  /** @defaultValue 30 */
  retentionDays: number;
  /** Jobs handled per step of a pass. @defaultValue 200 */
  batchSize?: number;
  /** @defaultValue 3600000 (hourly) */
  intervalMs?: number;
  /** Clock in Unix milliseconds. @defaultValue `Date.now` */
  now?: () => number;
}

export interface SweepResult {
  expired: number;
  purgesRetried: number;
  forgotten: number;
}

const DAY_MS = 86_400_000;

export async function sweepOnce(
  db: SqlDatabase,
  store: ObjectStore,
  options: RetentionOptions,
  logger?: Logger,
): Promise<SweepResult> {
  const now = (options.now ?? Date.now)();
  const cutoff = new Date(now - options.retentionDays * DAY_MS).toISOString();
  const limit = options.batchSize ?? 200;
  const result: SweepResult = { expired: 0, purgesRetried: 0, forgotten: 0 };

  const { rows: due } = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM render_jobs
      WHERE deleted_at IS NULL AND status IN ('completed', 'failed') AND finished_at < $1::timestamptz
      ORDER BY finished_at LIMIT $2`,
    [cutoff, limit],
  );
  for (const { id } of due) {
    if (await removeJob(db, store, id, 'expired', new Date(now), logger)) result.expired += 1;
  }

  const { rows: unpurged } = await db.query<JobRow>(
    `SELECT * FROM render_jobs
      WHERE deleted_at IS NOT NULL AND artifacts_purged_at IS NULL AND deleted_at < $1::timestamptz
      ORDER BY deleted_at LIMIT $2`,
    // Not the removals of this very moment: their own request is still purging them.
    [new Date(now - 60_000).toISOString(), limit],
  );
  for (const job of unpurged) {
    if (await purgeArtifacts(db, store, job, logger)) result.purgesRetried += 1;
  }

  const forgotten = await db.query(
    `DELETE FROM render_jobs
      WHERE id IN (SELECT id FROM render_jobs
                    WHERE deleted_at < $1::timestamptz AND artifacts_purged_at IS NOT NULL
                    ORDER BY deleted_at LIMIT $2)`,
    [cutoff, limit],
  );
  result.forgotten = forgotten.rowCount;
  return result;
}

/** Runs `sweepOnce` now and then every `intervalMs` until stopped. */
export function startRetentionSweeper(
  db: SqlDatabase,
  store: ObjectStore,
  logger: Logger,
  options: RetentionOptions,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const pass = () => {
    running = sweepOnce(db, store, options, logger)
      .then((r) => {
        if (r.expired + r.purgesRetried + r.forgotten > 0) logger.info(r, 'retention sweep');
      })
      .catch((error) => logger.warn({ err: error }, 'retention sweep failed'));
  };
  pass();
  const timer = setInterval(pass, options.intervalMs ?? 3_600_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

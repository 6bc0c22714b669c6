/**
 * Reaper: jobs downloading or rendering without a heartbeat for `stuckSeconds` become
 * failed (their worker died or hung); queued jobs whose every dispatch is done but which
 * nobody took for `redispatchAfterSeconds` (the in-process queue died with its process,
 * a Redis key was lost) get a new outbox event, at most `maxDispatches` in all, then fail.
 */
import type { Logger, SqlDatabase } from '@platform/core';
import { insertOutboxEvent } from '../jobs/job-store.js';

export interface ReaperOptions {
  /** @defaultValue 300 */
  stuckSeconds: number;
  /** @defaultValue 600 */
  redispatchAfterSeconds: number;
  /** @defaultValue 3 */
  maxDispatches: number;
  /** @defaultValue 30000 */
  intervalMs?: number;
}

export interface ReapResult {
  failedStuck: number;
  redispatched: number;
  failedUndispatchable: number;
}

export async function reapOnce(db: SqlDatabase, options: ReaperOptions): Promise<ReapResult> {
  const stuck = await db.query(
    `UPDATE render_jobs
        SET status = 'failed', finished_at = now(), updated_at = now(),
            error = 'The render stopped responding (worker lost or timed out) and was abandoned.'
      WHERE status IN ('downloading', 'rendering')
        AND COALESCE(heartbeat_at, started_at, updated_at) < now() - make_interval(secs => $1)`,
    [options.stuckSeconds],
  );
  // Lost dispatches: queued, nothing pending in the outbox, last dispatch long ago.
  const lost = `status = 'queued'
        AND NOT EXISTS (SELECT 1 FROM render_outbox o WHERE o.job_id = render_jobs.id AND o.dispatched_at IS NULL)
        AND COALESCE((SELECT max(o.dispatched_at) FROM render_outbox o WHERE o.job_id = render_jobs.id), created_at)
            < now() - make_interval(secs => $1)`;
  const givenUp = await db.query(
    `UPDATE render_jobs
        SET status = 'failed', finished_at = now(), updated_at = now(),
            error = 'The job could not be handed to a worker after ' || dispatch_count || ' attempts.'
      WHERE ${lost} AND dispatch_count >= $2`,
    [options.redispatchAfterSeconds, options.maxDispatches],
  );
  const redispatched = await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE render_jobs SET dispatch_count = dispatch_count + 1, updated_at = now()
        WHERE id IN (SELECT id FROM render_jobs WHERE ${lost} AND dispatch_count < $2 FOR UPDATE SKIP LOCKED)
        RETURNING id::text AS id`,
      [options.redispatchAfterSeconds, options.maxDispatches],
    );
    for (const row of rows) await insertOutboxEvent(tx, row.id);
    return rows.length;
  });
  return { failedStuck: stuck.rowCount, redispatched, failedUndispatchable: givenUp.rowCount };
}

export function startReaper(
  db: SqlDatabase,
  logger: Logger,
  options: ReaperOptions,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = reapOnce(db, options)
      .then((result) => {
        if (result.failedStuck || result.redispatched || result.failedUndispatchable)
          logger.warn(result, 'reaper acted');
      })
      .catch((error) => logger.error({ err: error }, 'reaper pass failed'));
  }, options.intervalMs ?? 30_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * At the start of a process whose queue lives in its memory, every queued job already
 * dispatched was dispatched into a queue that no longer exists: give each a new outbox
 * event now rather than after `redispatchAfterSeconds`. Returns how many.
 */
export async function redispatchAfterRestart(db: SqlDatabase): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id::text AS id FROM render_jobs j
        WHERE status = 'queued'
          AND NOT EXISTS (SELECT 1 FROM render_outbox o WHERE o.job_id = j.id AND o.dispatched_at IS NULL)
        FOR UPDATE SKIP LOCKED`,
    );
    for (const row of rows) await insertOutboxEvent(tx, row.id);
    return rows.length;
  });
}

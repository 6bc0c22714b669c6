/**
 * Reaper: a job downloading or rendering without a heartbeat for `stuckSeconds` lost its
 * worker (killed, machine gone, hung): it goes back to the queue with a new outbox event,
 * as a worker shutting down gives its job back, so another worker renders it; a job that
 * already used `maxDispatches` runs (e.g. one that brings its workers down) fails
 * instead. A queued job whose last dispatch is older than `redispatchAfterSeconds` is
 * asked about in the task queue: while its task still waits or runs there it is left
 * alone however long the backlog is; a job whose task is gone (the in-process queue died
 * with its process, Redis lost its keys, the task failed before a worker could claim the
 * job) gets a new outbox event. No worker ever started that job, so the loss is the
 * queue's, not the job's: it is not counted against `maxDispatches` (a job waiting
 * through many Redis losses must not fail for them). What bounds it is time: one new
 * event per job per `redispatchAfterSeconds`, however often the queue loses it.
 */
import type { Logger, SqlDatabase } from '@platform/core';
import { insertOutboxEvent } from '../jobs/job-store.js';
import type { TaskQueue } from '../queue/task-queue.js';

export interface ReaperOptions {
  /** @defaultValue 300 */
  stuckSeconds: number;
  /** @defaultValue 600 */
  redispatchAfterSeconds: number;
  /** Runs a worker may start (and lose) before the job fails. @defaultValue 3 */
  maxDispatches: number;
  /** @defaultValue 30000 */
  intervalMs?: number;
  /** Jobs looked at per pass for lost tasks. @defaultValue 500 */
  batchSize?: number;
  /** Clock in Unix milliseconds. @defaultValue `Date.now` */
  now?: () => number;
}

export interface ReapResult {
  /** Running jobs whose worker was lost, back in the queue (a run counted). */
  requeuedStuck: number;
  /** Running jobs whose worker was lost with no run left: failed. */
  failedStuck: number;
  /** Queued jobs whose task the queue lost, dispatched again (not counted as a run). */
  redispatchedLost: number;
}

export const NOTHING_REAPED: Readonly<ReapResult> = Object.freeze({
  requeuedStuck: 0,
  failedStuck: 0,
  redispatchedLost: 0,
});

/** The part of the task queue the reaper asks. */
export type QueueProbe = Pick<TaskQueue, 'inQueue'>;

interface Candidate {
  id: string;
  event_id: string;
}

export async function reapOnce(
  db: SqlDatabase,
  queue: QueueProbe,
  options: ReaperOptions,
): Promise<ReapResult> {
  const now = new Date((options.now ?? Date.now)()).toISOString();
  const { requeuedStuck, failedStuck } = await reclaimStuck(db, now, options);
  // Queued, nothing pending in the outbox, last dispatch older than the window.
  const { rows: candidates } = await db.query<Candidate>(
    `SELECT j.id::text AS id, e.event_id::text AS event_id
       FROM render_jobs j
       JOIN LATERAL (SELECT max(o.id) AS event_id, max(o.dispatched_at) AS dispatched_at,
                            bool_or(o.dispatched_at IS NULL) AS pending
                       FROM render_outbox o WHERE o.job_id = j.id) e ON true
      WHERE j.status = 'queued' AND e.event_id IS NOT NULL AND NOT e.pending
        AND e.dispatched_at < $1::timestamptz - make_interval(secs => $2)
      ORDER BY j.created_at
      LIMIT $3`,
    [now, options.redispatchAfterSeconds, options.batchSize ?? 500],
  );
  if (candidates.length === 0) return { requeuedStuck, failedStuck, redispatchedLost: 0 };
  const waiting = await queue.inQueue(candidates.map((c) => c.event_id));
  let redispatchedLost = 0;
  for (const job of candidates) {
    if (waiting.has(job.event_id)) continue;
    if (await redispatchLost(db, job)) redispatchedLost += 1;
  }
  return { requeuedStuck, failedStuck, redispatchedLost };
}

/**
 * Stuck jobs back to the queue (new event, worker cleared, one run counted) or, once
 * `maxDispatches` runs were started, failed.
 */
async function reclaimStuck(
  db: SqlDatabase,
  now: string,
  options: ReaperOptions,
): Promise<{ requeuedStuck: number; failedStuck: number }> {
  const stuck = `status IN ('downloading', 'rendering')
        AND COALESCE(heartbeat_at, started_at, updated_at) < $1::timestamptz - make_interval(secs => $2)`;
  const requeued = await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE render_jobs
          SET status = 'queued', progress = 0, worker_id = NULL, started_at = NULL, heartbeat_at = NULL,
              dispatch_count = dispatch_count + 1, updated_at = now()
        WHERE ${stuck} AND dispatch_count < $3
        RETURNING id::text AS id`,
      [now, options.stuckSeconds, options.maxDispatches],
    );
    for (const row of rows) await insertOutboxEvent(tx, row.id);
    return rows.length;
  });
  const failed = await db.query(
    `UPDATE render_jobs
        SET status = 'failed', finished_at = now(), updated_at = now(),
            error = 'The render stopped responding (worker lost or timed out) and was abandoned after '
                    || dispatch_count || ' attempts.'
      WHERE ${stuck}`,
    [now, options.stuckSeconds],
  );
  return { requeuedStuck: requeued, failedStuck: failed.rowCount };
}

/**
 * A new event for one job whose task the queue lost; `dispatch_count` (runs) is left as it
 * is. False when the job moved on meanwhile (claimed, cancelled, or given a newer event).
 */
async function redispatchLost(db: SqlDatabase, job: Candidate): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE render_jobs SET updated_at = now()
        WHERE id = $1 AND status = 'queued'
          AND (SELECT max(o.id) FROM render_outbox o WHERE o.job_id = render_jobs.id) = $2::bigint`,
      [job.id, job.event_id],
    );
    if (rowCount === 0) return false;
    await insertOutboxEvent(tx, job.id);
    return true;
  });
}

export function startReaper(
  db: SqlDatabase,
  queue: QueueProbe,
  logger: Logger,
  options: ReaperOptions & {
    /** Called after each pass that did something (metrics). */
    onReaped?: (result: ReapResult) => void;
  },
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = reapOnce(db, queue, options)
      .then((result) => {
        if (!result.requeuedStuck && !result.failedStuck && !result.redispatchedLost) return;
        options.onReaped?.(result);
        // A lost task is the queue's doing (e.g. Redis restarted without persistence):
        // worth a look when it keeps happening, not a job's failure.
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

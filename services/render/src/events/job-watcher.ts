/**
 * Live state of watched jobs for the event streams: one query per tick for every job
 * being watched in this process (not one per connection), with each queued job's
 * position and an estimate of the time left.
 *
 * ETA: the average duration (taken → finished) of the last 20 completed renders. A
 * rendering job: the time it has run × the share left, once it has progress. A queued
 * job: its turn, with as many renders at once as are running now (at least one), times
 * that average. Null while nothing is known.
 */
import type { SqlDatabase } from '@platform/core';
import type { JobRow } from '../jobs/job-store.js';

export interface JobSnapshot {
  job: JobRow;
  /** Queued jobs ahead of this one, 1-based (1: next); null unless queued. */
  queuePosition: number | null;
  /** Seconds until the video is expected; null when unknown or finished. */
  etaSeconds: number | null;
}

export type SnapshotListener = (snapshot: JobSnapshot | undefined) => void;

export interface JobWatcher {
  /** Calls `listener` with the job's state every tick (undefined once the row is gone). */
  watch(jobId: string, listener: SnapshotListener): () => void;
  /** Connections being served, for limits. */
  readonly watching: number;
  close(): void;
}

type Row = JobRow & { ahead: number | null };

export function createJobWatcher(db: SqlDatabase, options: { intervalMs: number }): JobWatcher {
  const listeners = new Map<string, Set<SnapshotListener>>();
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;

  const tick = async () => {
    if (ticking || listeners.size === 0) return;
    ticking = true;
    try {
      const ids = [...listeners.keys()];
      const [{ rows }, stats] = await Promise.all([
        db.query<Row>(
          `SELECT j.*, CASE WHEN j.status = 'queued' AND j.deleted_at IS NULL THEN
                    (SELECT count(*)::int FROM render_jobs q
                      WHERE q.status = 'queued' AND (q.created_at, q.id) < (j.created_at, j.id))
                  END AS ahead
             FROM render_jobs j WHERE j.id = ANY($1::uuid[])`,
          [ids],
        ),
        db.query<{ avg_seconds: number | null; running: number }>(
          `SELECT (SELECT avg(EXTRACT(EPOCH FROM finished_at - started_at))::float8 FROM
                    (SELECT finished_at, started_at FROM render_jobs
                      WHERE status = 'completed' AND started_at IS NOT NULL AND finished_at IS NOT NULL
                      ORDER BY finished_at DESC LIMIT 20) recent) AS avg_seconds,
                  (SELECT count(*)::int FROM render_jobs WHERE status IN ('downloading', 'rendering')) AS running`,
        ),
      ]);
      const avg = stats.rows[0]?.avg_seconds ?? null;
      const slots = Math.max(1, Number(stats.rows[0]?.running ?? 0));
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const id of ids) {
        const row = byId.get(id);
        const snapshot = row ? toSnapshot(row, avg, slots) : undefined;
        for (const listener of listeners.get(id) ?? []) listener(snapshot);
      }
    } catch {
      // A failed tick is retried at the next one; streams keep their last state.
    } finally {
      ticking = false;
    }
  };

  return {
    watch(jobId, listener) {
      let set = listeners.get(jobId);
      if (!set) listeners.set(jobId, (set = new Set()));
      set.add(listener);
      count += 1;
      timer ??= setInterval(() => void tick(), options.intervalMs);
      void tick();
      return () => {
        if (!set.delete(listener)) return;
        count -= 1;
        if (set.size === 0) listeners.delete(jobId);
        if (listeners.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    get watching() {
      return count;
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      listeners.clear();
      count = 0;
    },
  };
}

function toSnapshot(row: Row, avgSeconds: number | null, slots: number): JobSnapshot {
  const { ahead, ...job } = row;
  const queuePosition = ahead === null || ahead === undefined ? null : Number(ahead) + 1;
  let etaSeconds: number | null = null;
  const progress = Number(job.progress);
  if (job.status === 'rendering' && progress > 0 && job.started_at) {
    const elapsed = (Date.now() - new Date(job.started_at).getTime()) / 1000;
    etaSeconds = Math.max(0, Math.round((elapsed * (100 - progress)) / progress));
  } else if (avgSeconds !== null && (job.status === 'downloading' || job.status === 'rendering')) {
    etaSeconds = Math.round(avgSeconds);
  } else if (avgSeconds !== null && queuePosition !== null) {
    etaSeconds = Math.round(avgSeconds * (Math.ceil(queuePosition / slots) + 1));
  }
  return { job: job as JobRow, queuePosition, etaSeconds };
}

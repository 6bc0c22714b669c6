/**
 * Outbox data access for the dispatcher: claim pending events with `FOR UPDATE SKIP
 * LOCKED` (several dispatchers never take the same one), acknowledge, release for retry.
 * A claim carries a deadline; an event whose claimer died is claimable again after it.
 */
import type { SqlExecutor } from '@platform/core';

export interface ClaimedEvent {
  id: string;
  job_id: string;
  attempts: number;
}

export async function claimEvents(
  db: SqlExecutor,
  dispatcherId: string,
  batchSize: number,
  claimSeconds: number,
): Promise<ClaimedEvent[]> {
  const { rows } = await db.query<ClaimedEvent>(
    `UPDATE render_outbox o
        SET claimed_by = $1, claimed_until = now() + make_interval(secs => $3), attempts = o.attempts + 1
      WHERE o.id IN (
        SELECT id FROM render_outbox
         WHERE dispatched_at IS NULL AND available_at <= now()
           AND (claimed_until IS NULL OR claimed_until < now())
         ORDER BY id
         LIMIT $2
         FOR UPDATE SKIP LOCKED)
      RETURNING o.id::text AS id, o.job_id::text AS job_id, o.attempts`,
    [dispatcherId, batchSize, claimSeconds],
  );
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Marks an event dispatched; false when the claim was lost (expired and taken by another). */
export async function acknowledgeEvent(
  db: SqlExecutor,
  id: string,
  dispatcherId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE render_outbox SET dispatched_at = now(), claimed_until = NULL
      WHERE id = $1 AND claimed_by = $2 AND dispatched_at IS NULL`,
    [id, dispatcherId],
  );
  return rowCount > 0;
}

export async function releaseEvent(
  db: SqlExecutor,
  id: string,
  dispatcherId: string,
  delaySeconds: number,
  error: string,
): Promise<void> {
  await db.query(
    `UPDATE render_outbox
        SET claimed_by = NULL, claimed_until = NULL, last_error = $3,
            available_at = now() + make_interval(secs => $4)
      WHERE id = $1 AND claimed_by = $2 AND dispatched_at IS NULL`,
    [id, dispatcherId, error.slice(0, 500), delaySeconds],
  );
}

export async function pendingEventCount(db: SqlExecutor): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM render_outbox WHERE dispatched_at IS NULL',
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The intake outbox (`intake_outbox`, issue 21): statements on the events the submission
 * service accepted. A create's row is written by `reserveCreates` (read-model.ts) in the
 * statement that reserves its key; an update's or tombstone's by `enqueueEvent`. After
 * the broker acknowledged, `markSent` records the position and applies the event to the
 * read model in one statement, so the read model never shows an event that has no
 * outbox row. Functions take the database handle first.
 *
 * An event is unsent while `intake_outbox_unsent` holds its `seq` (written with the row,
 * deleted by the mark-sent), so marking sent sets only columns no index holds: a HOT
 * update (migration 007). The reconciler's window is found by `window_at` (the queuing,
 * or the relay's or reconciler's publish), not by `sent_at`.
 */
import type { SqlExecutor } from '@platform/core';
import type { Envelope } from '../contracts/envelope.js';

export type EventKind = 'create' | 'update' | 'delete';

export interface OutboxEntry {
  seq: number;
  kind: EventKind;
  topic: string;
  /** The envelope as published (its `revision` set). */
  envelope: Envelope;
  partition: number | null;
  offset: number | null;
  /** The de-duplication id it was last published with. */
  dedupeId: string;
}

export interface SentPosition {
  recordId: string;
  partition: number;
  offset: number;
  /** @defaultValue the record id */
  dedupeId?: string;
}

/**
 * Positions as four parallel arrays for `unnest($1::uuid[], $2::integer[], $3::bigint[],
 * $4::text[])`: unlike `jsonb_to_recordset` (always estimated at 100 rows), PostgreSQL
 * estimates an unnested array parameter at its length, so a batch of a few positions is
 * joined to the outbox and the read model by their keys, not by a hash join over a
 * sequential scan of both tables (which made marking sent, on a young outbox of a few
 * thousand rows, cost five times the statement that queued the rows).
 */
const positionArrays = (positions: SentPosition[]) => [
  positions.map((p) => p.recordId),
  positions.map((p) => p.partition),
  positions.map((p) => p.offset),
  positions.map((p) => p.dedupeId ?? null),
];

/** The positions of `positionArrays` as a relation `r`. */
const POSITIONS =
  'unnest($1::uuid[], $2::integer[], $3::bigint[], $4::text[]) AS r(record_id, partition, "offset", dedupe_id)';

interface EntryRow {
  seq: string | number;
  kind: EventKind;
  topic: string;
  envelope: Envelope | string;
  revision: number;
  partition: number | null;
  offset: string | number | null;
  dedupe_id: string | null;
  record_id: string;
}

const ENTRY_COLUMNS =
  'seq, kind, topic, envelope, revision, partition, "offset", dedupe_id, record_id::text AS record_id';

function toEntry(row: EntryRow): OutboxEntry {
  const envelope = typeof row.envelope === 'string' ? JSON.parse(row.envelope) : row.envelope;
  return {
    seq: Number(row.seq),
    kind: row.kind,
    topic: row.topic,
    envelope: { ...envelope, revision: Number(row.revision) },
    partition: row.partition === null ? null : Number(row.partition),
    offset: row.offset === null ? null : Number(row.offset),
    dedupeId: row.dedupe_id ?? envelope.recordId,
  };
}

/** The envelope as stored: without `revision`, which has its own column. */
export function storedEnvelope(envelope: Envelope): Omit<Envelope, 'revision'> {
  const { revision: _revision, ...rest } = envelope;
  return rest;
}

/**
 * Queues an update or tombstone of an active record; its revision is the next one after
 * the read model's and after any event of the key still in the outbox. Returns that
 * revision, or undefined when the record is not active (nothing queued).
 */
export async function enqueueEvent(
  db: SqlExecutor,
  kind: 'update' | 'delete',
  topic: string,
  envelope: Envelope,
  owner: string,
): Promise<number | undefined> {
  const { rows } = await db.query<{ revision: number }>(
    `WITH queued AS (
       INSERT INTO intake_outbox (record_id, contract_id, natural_key, kind, topic, envelope, revision, owner)
       SELECT $1, $2, $3, $4, $5, $6::jsonb,
         GREATEST(s.revision, COALESCE((SELECT max(o.revision) FROM intake_outbox o
           WHERE o.contract_id = $2 AND o.natural_key = $3), 0)) + 1, $7
       FROM submitted_records s WHERE s.contract_id = $2 AND s.natural_key = $3 AND s.state = 'active'
       RETURNING seq, revision
     ), unsent AS (INSERT INTO intake_outbox_unsent (seq) SELECT seq FROM queued)
     SELECT revision FROM queued`,
    [
      envelope.recordId,
      envelope.contractId,
      envelope.naturalKey,
      kind,
      topic,
      JSON.stringify(storedEnvelope(envelope)),
      owner,
    ],
  );
  return rows[0] ? Number(rows[0].revision) : undefined;
}

/** The revisions of those of `recordIds` the outbox holds (a statement whose answer was lost may have committed). */
export async function queuedRevisions(
  db: SqlExecutor,
  recordIds: string[],
): Promise<Map<string, number>> {
  const { rows } = await db.query<{ record_id: string; revision: number }>(
    'SELECT record_id::text AS record_id, revision FROM intake_outbox WHERE record_id = ANY($1::uuid[])',
    [recordIds],
  );
  return new Map(rows.map((row) => [row.record_id.toLowerCase(), Number(row.revision)]));
}

/**
 * One call of `intake_turn` (migration 008): marks `positions` sent, then, given
 * `createsJson`, reserves and queues those creates (`reserveCreates`), in one round trip
 * and one transaction. Returns the creates' reservation rows.
 */
export async function intakeTurn(
  db: SqlExecutor,
  positions: SentPosition[],
  restartWindow: boolean,
  createsJson: string | null,
  owner: string | null,
): Promise<Array<{ record_id: string; inserted: boolean; revision: number }>> {
  const { rows } = await db.query<{ record_id: string; inserted: boolean; revision: number }>(
    `SELECT record_id, inserted, revision
     FROM intake_turn($1::uuid[], $2::integer[], $3::bigint[], $4::text[], $5::boolean, $6::jsonb, $7::text)`,
    [...positionArrays(positions), restartWindow, createsJson, owner],
    // Every request's micro-batch runs it: parsed once a session. The function plans its
    // mark-sent each call with the positions known (the migration says why).
    { prepareAs: 'integration_intake_turn' },
  );
  return rows;
}

/**
 * Marks published events sent at their broker position (out of the unsent queue) and
 * applies them to the read model (a create becomes active, an update replaces the state, a
 * tombstone deletes), unless the read model already holds a later revision of the key.
 * One statement. `restartWindow` (the relay, publishing events queued any time ago) starts
 * their reconciler window now; a request's events keep the one their queuing started, so
 * their outbox row's update stays HOT. A request's events are marked in the turn that
 * reserves the next creates (`reserveAndMarkSent`, read-model.ts).
 */
export async function markSent(
  db: SqlExecutor,
  positions: SentPosition[],
  restartWindow = false,
): Promise<void> {
  if (positions.length === 0) return;
  await intakeTurn(db, positions, restartWindow, null, null);
}

/**
 * Takes back events whose publish failed and that were not sent since (by a relay):
 * their rows go, a create's reservation is released (a new key removed, a re-created one
 * deleted again). Returns the record ids taken back; the others were sent after all.
 */
export async function discardUnsent(db: SqlExecutor, recordIds: string[]): Promise<Set<string>> {
  if (recordIds.length === 0) return new Set();
  const { rows } = await db.query<{ record_id: string }>(
    `WITH gone AS (
       DELETE FROM intake_outbox o WHERE o.record_id = ANY($1::uuid[]) AND o.sent_at IS NULL
       RETURNING o.seq, o.record_id, o.contract_id, o.natural_key, o.kind
     ), dequeued AS (DELETE FROM intake_outbox_unsent u USING gone WHERE u.seq = gone.seq),
     creates AS (SELECT * FROM gone WHERE kind = 'create'),
     removed AS (
       DELETE FROM submitted_records s USING creates c
       WHERE s.contract_id = c.contract_id AND s.natural_key = c.natural_key AND s.record_id = c.record_id
         AND s.state = 'pending' AND s.revision = 1
     ), deleted_again AS (
       UPDATE submitted_records s SET state = 'deleted' FROM creates c
       WHERE s.contract_id = c.contract_id AND s.natural_key = c.natural_key AND s.record_id = c.record_id
         AND s.state = 'pending' AND s.revision > 1
     )
     SELECT record_id::text AS record_id FROM gone`,
    [recordIds],
  );
  return new Set(rows.map((row) => row.record_id.toLowerCase()));
}

/**
 * Unsent events the relay should publish, oldest first: those of other processes (or an
 * earlier run of this one) older than `leaseMs`, and `stranded` ones of this process.
 */
export async function unsentEntries(
  db: SqlExecutor,
  owner: string,
  leaseMs: number,
  stranded: string[],
  limit: number,
): Promise<OutboxEntry[]> {
  const { rows } = await db.query<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM intake_outbox o JOIN intake_outbox_unsent u USING (seq)
     WHERE (o.owner <> $1 AND o.created_at < now() - make_interval(secs => $2::double precision / 1000))
       OR o.record_id = ANY($3::uuid[])
     ORDER BY seq LIMIT $4`,
    [owner, leaseMs, stranded, limit],
  );
  return rows.map(toEntry);
}

/**
 * Where one partition's events sent within the reconciler's window are: one aggregate row
 * each, so the reconciler reads no envelope while the broker holds them all.
 */
export interface SentSpan {
  topic: string;
  partition: number;
  fromOffset: number;
  toOffset: number;
  events: number;
  /** Distinct offsets among them (fewer than `events`: an offset was given twice). */
  offsets: number;
}

/** One partition's events sent within one bucket of `window_at` (`bucketMs` long). */
export interface SentSpanBucket extends SentSpan {
  /** The bucket's start, ms since the epoch (a multiple of `bucketMs`). */
  bucketAt: number;
}

export interface SentSpanBuckets {
  buckets: SentSpanBucket[];
  /**
   * No event can still join a bucket that ends by this time (ms since the epoch): every
   * transaction that could write a `window_at` before it had ended before the read, and
   * no unsent event has one (its mark-sent keeps it). The oldest of: the database's clock
   * before the read, the start of any other transaction then open in this database (a
   * row's `window_at` is its transaction's `now()`), the oldest unsent event's `window_at`.
   */
  settledBefore: number;
}

/**
 * Per partition, the span of the offsets of the events sent within the last `windowMs`,
 * by bucket of `window_at`, for the events whose `window_at` is at or after `fromMs`: the
 * reconciler reads the buckets that can still change and keeps the settled ones, so a
 * call reads the events of the last few seconds, not the whole window's (summing the
 * whole window, 38 ms a call at 13,000 events, would be about 2 s of PostgreSQL every 5 s
 * at 600,000). Two statements, in this order: the open transactions are read before the
 * snapshot the buckets are read in, so a transaction invisible to that snapshot was
 * either open at the first statement (its start bounds `settledBefore`) or began after
 * it. `pg_stat_activity` shows other roles' `xact_start` only to members of
 * `pg_read_all_stats`; the service writes its outbox under one role. PGlite runs one
 * transaction at a time: none is open beside the reader.
 */
export async function sentSpanBuckets(
  db: SqlExecutor,
  windowMs: number,
  bucketMs: number,
  fromMs: number | undefined,
): Promise<SentSpanBuckets> {
  const { rows: open } = await db.query<{
    now_ms: string | number;
    oldest_ms: string | number | null;
  }>(
    `SELECT (extract(epoch FROM now()) * 1000)::float8 AS now_ms,
       (SELECT extract(epoch FROM min(xact_start)) * 1000 FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid())::float8 AS oldest_ms`,
  );
  const { rows } = await db.query<{
    topic: string;
    partition: number;
    bucket_at: string | number;
    from_offset: string | number;
    to_offset: string | number;
    events: string | number;
    offsets: string | number;
    unsent_ms: string | number | null;
  }>(
    `WITH unsent AS (
       SELECT (extract(epoch FROM min(o.window_at)) * 1000)::float8 AS unsent_ms
       FROM intake_outbox_unsent u JOIN intake_outbox o USING (seq)
     ), spans AS (
       SELECT topic, partition,
         floor(extract(epoch FROM window_at) * 1000 / $2::integer)::bigint * $2::integer AS bucket_at,
         min("offset") AS from_offset, max("offset") AS to_offset,
         count(*) AS events, count(DISTINCT "offset") AS offsets
       FROM intake_outbox
       WHERE window_at > now() - make_interval(secs => $1::double precision / 1000)
         AND window_at >= COALESCE(to_timestamp($3::double precision / 1000), '-infinity')
         AND sent_at IS NOT NULL AND partition IS NOT NULL AND "offset" IS NOT NULL
       GROUP BY 1, 2, 3
     )
     SELECT spans.*, unsent.unsent_ms FROM unsent LEFT JOIN spans ON true`,
    [windowMs, bucketMs, fromMs ?? null],
  );
  const bounds = [Number(open[0]!.now_ms), open[0]!.oldest_ms, rows[0]?.unsent_ms];
  return {
    settledBefore: Math.min(...bounds.filter((b) => b !== null && b !== undefined).map(Number)),
    buckets: rows
      .filter((row) => row.topic !== null)
      .map((row) => ({
        topic: row.topic,
        partition: Number(row.partition),
        bucketAt: Number(row.bucket_at),
        fromOffset: Number(row.from_offset),
        toOffset: Number(row.to_offset),
        events: Number(row.events),
        offsets: Number(row.offsets),
      })),
  };
}

/** Events of one partition sent within the last `windowMs` (the reconciler's window), oldest first. */
export async function recentlySent(
  db: SqlExecutor,
  windowMs: number,
  slot: { topic: string; partition: number },
  limit: number,
): Promise<OutboxEntry[]> {
  const { rows } = await db.query<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM intake_outbox
     WHERE window_at > now() - make_interval(secs => $1::double precision / 1000)
       AND sent_at IS NOT NULL AND topic = $2 AND partition = $3 AND "offset" IS NOT NULL
     ORDER BY seq LIMIT $4`,
    [windowMs, slot.topic, slot.partition, limit],
  );
  return rows.map(toEntry);
}

/** Records where events published again now are (their window starts again). */
export async function markResent(db: SqlExecutor, positions: SentPosition[]): Promise<void> {
  if (positions.length === 0) return;
  await db.query(
    `UPDATE intake_outbox o SET sent_at = now(), window_at = now(), partition = r.partition,
       "offset" = r."offset", dedupe_id = COALESCE(r.dedupe_id, o.dedupe_id)
     FROM ${POSITIONS}
     WHERE o.record_id = r.record_id`,
    positionArrays(positions),
  );
}

/** Drops sent events older than the reconciler's window. Returns how many. */
export async function pruneSent(db: SqlExecutor, windowMs: number): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(
    `WITH gone AS (DELETE FROM intake_outbox
       WHERE window_at < now() - make_interval(secs => $1::double precision / 1000)
         AND sent_at IS NOT NULL RETURNING 1)
     SELECT count(*) AS n FROM gone`,
    [windowMs],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Unsent events (a gauge for /metrics and the relay's log). */
export async function countUnsent(db: SqlExecutor): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM intake_outbox_unsent',
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The relational target's batch write: the events of one partition — or of several
 * partitions and topics, merged per consumer pass (`pass-writer.ts`) — in one
 * transaction, a fixed number of statements whatever the batch size.
 *
 * 1. Events this attachment already audited are duplicates (one look-up for the batch).
 * 2. The rest are folded per natural key: the newest event wins, and an event older
 *    than one before it (or than the key's revision the attachment already applied) is
 *    stale, as it would have been applied one by one. Newer means a higher `revision`
 *    when both events carry one, else a later event time (envelopes of earlier releases).
 *    A create with a revision is written as an upsert: the revision already ruled out
 *    older events, so a create after a (soft) delete replaces the row. A merged batch
 *    holds a key's events of the created, updated and deleted topics side by side; the
 *    fold orders them by revision, as applying the topics' batches one after another did.
 * 3. The winners go out as at most one multi-row insert (creates), one multi-row upsert
 *    (updates) and one multi-row delete or soft-delete (tombstones) — twice at most in a
 *    batch mixing events with and without revisions; rows are passed as
 *    one JSON array and typed by the table's own row type (`jsonb_populate_recordset`),
 *    so every column type is cast as the table declares it. Each statement keeps the
 *    single-event rules (a newer row is left alone) and returns the keys it changed.
 * 4. One multi-row audit insert: every fresh event, `applied` when its key changed. The
 *    keys' revisions (kept after a hard delete, so a late update of a deleted key stays
 *    stale) are set by the read of 2., which locks each key's row, sets it to the newest
 *    revision among the batch's events and returns the one it held (`revision_before`):
 *    one write a key. The writes end where that revision says: each key's winner is
 *    newer than the stored revision and always applied (events with a revision skip the
 *    event-time guard), and an already audited event is no newer than the stored one.
 * 5. Offsets in the target: the batch's position (next offset per consumer group, topic
 *    and partition) is read first, locked, and stored last, in the same transaction, for
 *    the consumer to resume at. It skips nothing here: the audit decides what is a
 *    duplicate. Every event of a batch that stored a position has its audit row, so an
 *    event below the position without one is a record the target never saw: after a
 *    broker power loss a new record can take a lost offset the consumer had already read
 *    past, and a later batch then stores a position above it (chaos seed 22: an update
 *    published right after a NATS power loss sat at such an offset; the position skipped
 *    it as covered and it never got its audit row nor its write).
 *
 * Round trips (issue 11): the reads of 1., 2. and 5. (position locked, audited ids, key
 * revisions locked) are one statement, and the writes of 3., 4. and 5. are another —
 * data-modifying CTEs, one per table, so no row is changed twice by one statement — with
 * BEGIN and COMMIT four in all, whatever the batch holds. PostgreSQL and PGlite both run
 * them (a multi-statement string would not take parameters on the pg driver).
 */
import { createHash } from 'node:crypto';
import type { SqlExecutor } from '@platform/core';
import type { TargetEvent, WriteOutcome } from '../runtime/adapter-target.js';
import {
  positionsAfter,
  type AppliedPosition,
  type PositionSlot,
} from '../runtime/applied-position.js';
import type { LifecycleClass } from '../runtime/attachment.js';
import { q, type GenericMapping, type Mapping, type Row, type ShapedMapping } from './mapping.js';

interface Winner {
  event: TargetEvent;
  row: Row;
}

/**
 * The audit rows of the fresh events; `applied` when the row's key is among the keys the
 * batch's writes changed (`changedKeys`, a query over the sibling CTEs; empty: none).
 */
const auditSql = (
  changedKeys: string,
) => `INSERT INTO audit_log (attachment_id, contract_id, record_id, trace_id, record_type, lifecycle, natural_key,
    schema_version, occurred_at, applied, payload)
  SELECT $1, a.contract_id, a.record_id, a.trace_id, a.record_type, a.lifecycle, a.natural_key, a.schema_version,
    a.occurred_at, ${changedKeys ? `a.row_key IS NOT NULL AND a.row_key IN (${changedKeys})` : 'false'}, a.payload
  FROM jsonb_to_recordset($ROWS::jsonb) AS a(contract_id text, record_id uuid, trace_id uuid, record_type text, lifecycle text,
    natural_key text, schema_version integer, occurred_at timestamptz, payload jsonb, row_key text)
  ON CONFLICT (attachment_id, record_id) DO NOTHING`;

/** True when `a` is newer than `b` or as new (then the later in offset order wins). */
const notOlder = (a: TargetEvent, b: TargetEvent): boolean =>
  a.envelope.revision !== undefined && b.envelope.revision !== undefined
    ? a.envelope.revision >= b.envelope.revision
    : Date.parse(a.envelope.occurredAt) >= Date.parse(b.envelope.occurredAt);

/** Key of a written row as the statements return it. */
const keyOf = (m: Mapping, winner: Winner): string =>
  m.mode === 'generic'
    ? winner.event.envelope.naturalKey
    : String(winner.row[m.keyColumn] ?? winner.event.envelope.naturalKey);

function genericStatement(
  m: GenericMapping,
  lifecycle: LifecycleClass,
  winners: Winner[],
  /** Keep a newer row (by event time) alone; off for events ordered by revision. */
  guard: boolean,
): [string, unknown[]] {
  const t = m.sqlTable;
  const source = `jsonb_populate_recordset(NULL::${t}, $1::jsonb)`;
  if (lifecycle === 'tombstone') {
    const rows = winners.map(({ event: { envelope } }) => ({
      contract_id: envelope.contractId,
      natural_key: envelope.naturalKey,
      occurred_at: envelope.occurredAt,
    }));
    const match = `${t}.contract_id = d.contract_id AND ${t}.natural_key = d.natural_key AND ${guard ? `${t}.occurred_at <= d.occurred_at` : 'true'}`;
    const sql =
      m.tombstone === 'delete'
        ? `DELETE FROM ${t} USING ${source} AS d WHERE ${match} RETURNING ${t}.natural_key AS k`
        : `UPDATE ${t} SET deleted_at = d.occurred_at, occurred_at = d.occurred_at, updated_at = now() FROM ${source} AS d WHERE ${match} RETURNING ${t}.natural_key AS k`;
    return [sql, [JSON.stringify(rows)]];
  }
  const rows = winners.map(({ event: { envelope }, row }) => ({
    record_id: envelope.recordId,
    contract_id: envelope.contractId,
    record_type: envelope.recordType,
    natural_key: envelope.naturalKey,
    payload: row.payload,
    occurred_at: envelope.occurredAt,
  }));
  const columns = 'record_id, contract_id, record_type, natural_key, payload, occurred_at';
  const insert = `INSERT INTO ${t} (${columns}) SELECT ${columns} FROM ${source}`;
  const sql =
    lifecycle === 'create'
      ? `${insert} ON CONFLICT DO NOTHING RETURNING natural_key AS k`
      : `${insert} ON CONFLICT (contract_id, natural_key) DO UPDATE SET record_id = EXCLUDED.record_id,
           record_type = EXCLUDED.record_type, payload = EXCLUDED.payload, occurred_at = EXCLUDED.occurred_at,
           updated_at = now(), deleted_at = NULL
         WHERE ${guard ? `${t}.occurred_at <= EXCLUDED.occurred_at` : 'true'} RETURNING natural_key AS k`;
  return [sql, [JSON.stringify(rows)]];
}

function shapedStatement(
  m: ShapedMapping,
  lifecycle: LifecycleClass,
  winners: Winner[],
  /** Keep a newer row (by event time) alone; off for events ordered by revision. */
  guard: boolean,
): [string, unknown[]] {
  const t = m.sqlTable;
  const key = q(m.keyColumn);
  const source = `jsonb_populate_recordset(NULL::${t}, $1::jsonb)`;
  if (lifecycle === 'tombstone') {
    const rows = winners.map(({ event, row }) => ({
      [m.keyColumn]: row[m.keyColumn],
      created_at: event.envelope.occurredAt,
    }));
    const match = `${t}.${key} = d.${key} AND ${guard ? `${t}.created_at <= d.created_at` : 'true'}`;
    const sql =
      m.tombstone === 'delete'
        ? `DELETE FROM ${t} USING ${source} AS d WHERE ${match} RETURNING ${t}.${key}::text AS k`
        : `UPDATE ${t} SET deleted_at = d.created_at, created_at = d.created_at FROM ${source} AS d WHERE ${match} RETURNING ${t}.${key}::text AS k`;
    return [sql, [JSON.stringify(rows)]];
  }
  const columns = ['record_id', ...m.columns.map((c) => c.column), 'created_at'];
  const rows = winners.map(({ event, row }) => ({
    ...row,
    record_id: event.envelope.recordId,
    created_at: event.envelope.occurredAt,
  }));
  const list = columns.map(q).join(', ');
  const insert = `INSERT INTO ${t} (${list}) SELECT ${list} FROM ${source}`;
  const updates = columns.filter((c) => c !== m.keyColumn).map((c) => `${q(c)} = EXCLUDED.${q(c)}`);
  if (m.tombstone === 'soft-delete') updates.push('deleted_at = NULL');
  const sql =
    lifecycle === 'create'
      ? `${insert} ON CONFLICT DO NOTHING RETURNING ${key}::text AS k`
      : `${insert} ON CONFLICT (${key}) DO UPDATE SET ${updates.join(', ')} WHERE ${guard ? `${t}.created_at <= EXCLUDED.created_at` : 'true'} RETURNING ${key}::text AS k`;
  return [sql, [JSON.stringify(rows)]];
}

const POSITION_SQL = `SELECT next_offset, last_record_id, last_published_at FROM relational_offsets
  WHERE attachment_id = $1 AND consumer_group = $2 AND topic = $3 AND partition = $4 FOR UPDATE`;

const STORE_POSITION_SQL = `INSERT INTO relational_offsets
    (attachment_id, consumer_group, topic, partition, next_offset, last_record_id, last_published_at)
  SELECT $1, p.consumer_group, p.topic, p.partition, p.next_offset, p.last_record_id, p.last_published_at
  FROM jsonb_to_recordset($ROWS::jsonb) AS p(consumer_group text, topic text, partition integer, next_offset bigint, last_record_id text, last_published_at bigint)
  ON CONFLICT (attachment_id, consumer_group, topic, partition) DO UPDATE
    SET next_offset = EXCLUDED.next_offset, last_record_id = EXCLUDED.last_record_id,
      last_published_at = EXCLUDED.last_published_at, updated_at = now()`;

/**
 * The reads before a batch's decisions, one round trip: the slots' stored positions
 * (locked; `p`), the batch's record ids this attachment already audited (`a`), and the
 * revised keys' revisions before this batch (`r`): each key's row made when new, locked
 * in key order — the created, updated and deleted topics are consumed side by side, and
 * two batches deciding on one key must do it one after the other — and set to the
 * batch's newest revision of the key (see 4.; `SET` reads the row as it was).
 */
export const READ_SQL = `WITH p AS (
    SELECT o.next_offset, o.last_record_id, o.last_published_at FROM relational_offsets o
    JOIN unnest($2::text[], $3::text[], $4::int[]) AS s (consumer_group, topic, partition)
      ON o.consumer_group = s.consumer_group AND o.topic = s.topic AND o.partition = s.partition
    WHERE o.attachment_id = $1 ORDER BY o.consumer_group, o.topic, o.partition FOR UPDATE OF o),
  a AS (SELECT u.id::text AS record_id FROM unnest($5::uuid[]) AS u (id)
    CROSS JOIN LATERAL (SELECT 1 FROM audit_log l WHERE l.attachment_id = $1 AND l.record_id = u.id LIMIT 1) AS hit),
  r AS (INSERT INTO relational_key_revisions AS kr (attachment_id, natural_key, revision, revision_before)
    SELECT $1, u.k, u.revision, 0 FROM unnest($6::text[], $7::bigint[]) AS u (k, revision) ORDER BY u.k
    ON CONFLICT (attachment_id, natural_key) DO UPDATE
      SET revision_before = kr.revision, revision = GREATEST(kr.revision, EXCLUDED.revision)
    RETURNING natural_key, revision_before)
  SELECT 'p' AS kind, next_offset::text AS a, last_record_id AS b, last_published_at::text AS c FROM p
  UNION ALL SELECT 'a', record_id, NULL, NULL FROM a
  UNION ALL SELECT 'r', natural_key, revision_before::text, NULL FROM r`;

/**
 * Prepared once a session (PostgreSQL): parsed and planned once, not every batch. Safe
 * with a generic plan: the audit look-up probes the index once per record id (the
 * `LATERAL … LIMIT 1` is never turned into a scan of the attachment's whole audit log,
 * which the planner chose for `record_id = ANY(…)` and which grew with the log), the
 * offsets table holds one row per partition, and the rest are inserts.
 */
const READ_OPTIONS = { prepareAs: 'relational_batch_read' };

/**
 * The write statement's text depends only on the mapping and on which statements a batch
 * needs, so a handful of texts recur: each is prepared under a name derived from it (one
 * name, one text). Beyond `MAX_PREPARED` texts (a process with very many attachments),
 * the rest run unprepared.
 */
const prepared = new Map<string, { prepareAs: string }>();
const MAX_PREPARED = 256;
function preparedAs(text: string): { prepareAs: string } | undefined {
  let options = prepared.get(text);
  if (!options && prepared.size < MAX_PREPARED) {
    options = {
      prepareAs: `relational_batch_write_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`,
    };
    prepared.set(text, options);
  }
  return options;
}

/** A `relational_offsets` row as a position (its publish time absent in rows written before it was kept). */
const storedPosition = (
  nextOffset: string | number,
  lastRecordId: string,
  publishedAt: string | number | null,
): AppliedPosition => ({
  nextOffset: Number(nextOffset),
  lastRecordId,
  ...(publishedAt === null ? {} : { lastPublishedAt: Number(publishedAt) }),
});

/** The position stored for a slot (`tx` locks its row when it is a transaction). */
export async function readRelationalPosition(
  tx: SqlExecutor,
  attachmentId: string,
  slot: PositionSlot,
): Promise<AppliedPosition | undefined> {
  const { rows } = await tx.query<{
    next_offset: string | number;
    last_record_id: string;
    last_published_at: string | number | null;
  }>(POSITION_SQL, [attachmentId, slot.consumerGroup, slot.topic, slot.partition]);
  return rows[0]
    ? storedPosition(rows[0].next_offset, rows[0].last_record_id, rows[0].last_published_at)
    : undefined;
}

export async function writeRelationalBatch(
  tx: SqlExecutor,
  m: Mapping,
  events: TargetEvent[],
  rows: Row[],
): Promise<WriteOutcome[]> {
  // The slots (partitions) whose positions the batch stores: one for a partition's batch,
  // several when the batches of one consumer pass were merged (pass-writer.ts).
  const slots = positionsAfter(events).map(({ slot }) => slot);
  // Each revised key's newest revision in the batch: what its row holds after it (see 4.).
  const newestOf = new Map<string, number>();
  for (const { envelope } of events) {
    const { naturalKey: key, revision } = envelope;
    if (revision !== undefined && revision > (newestOf.get(key) ?? 0)) newestOf.set(key, revision);
  }
  const { rows: known } = await tx.query<{
    kind: 'p' | 'a' | 'r';
    a: string;
    b: string | null;
    c: string | null;
  }>(
    READ_SQL,
    [
      m.attachmentId,
      slots.map((slot) => slot.consumerGroup),
      slots.map((slot) => slot.topic),
      slots.map((slot) => slot.partition),
      events.map((e) => e.envelope.recordId),
      [...newestOf.keys()],
      [...newestOf.values()],
    ],
    READ_OPTIONS,
  );
  // The stored positions (rows `p`) are read for their locks only; see 5.
  const seen = new Set(known.filter((row) => row.kind === 'a').map((row) => row.a.toLowerCase()));
  const applied = new Map<string, number>();
  for (const row of known) if (row.kind === 'r') applied.set(row.a, Number(row.b));
  const fresh: number[] = [];
  const winners = new Map<string, number>();
  const inSequence = new Set<number>();
  events.forEach((event, i) => {
    const id = event.envelope.recordId.toLowerCase();
    if (seen.has(id)) return;
    seen.add(id);
    fresh.push(i);
    const { naturalKey: key, revision } = event.envelope;
    if (revision !== undefined && revision <= (applied.get(key) ?? 0)) return;
    const best = winners.get(key);
    if (best === undefined || notOlder(event, events[best]!)) {
      winners.set(key, i);
      inSequence.add(i);
    }
  });
  // A create that carries a revision is an upsert (see 2.).
  const statementOf = (event: TargetEvent): LifecycleClass =>
    event.lifecycle === 'create' && event.envelope.revision !== undefined
      ? 'update'
      : event.lifecycle;
  const parts: string[] = [];
  const params: unknown[] = [m.attachmentId];
  /** Adds one statement as a CTE; its `$ROWS` (the rows' JSON) becomes the next parameter. */
  const cte = (sql: string, value: unknown) => {
    params.push(value);
    parts.push(`w${parts.length} AS (${sql.replaceAll('$ROWS', `$${params.length}`)})`);
  };
  const writes: Array<{ part: string; group: Winner[] }> = [];
  // Events with a revision were ordered above: their statements skip the event-time guard.
  for (const [lifecycle, guard] of [
    ['create', true],
    ['update', true],
    ['tombstone', true],
    ['update', false],
    ['tombstone', false],
  ] as const) {
    const group = [...winners.values()]
      .filter(
        (i) =>
          statementOf(events[i]!) === lifecycle &&
          (events[i]!.envelope.revision === undefined) === guard,
      )
      .map((i) => ({ event: events[i]!, row: rows[i]! }));
    if (group.length === 0) continue;
    const [sql, [json]] =
      m.mode === 'generic'
        ? genericStatement(m, lifecycle, group, guard)
        : shapedStatement(m, lifecycle, group, guard);
    // The statements take their rows as `$1`; here `$1` is the attachment.
    cte(sql.replaceAll('$1', '$ROWS'), json);
    writes.push({ part: `w${parts.length - 1}`, group });
  }
  // The audit's `applied` depends on what the writes changed: those keys come back from
  // them (`k`), and each audit row says the key its winner's statement returns.
  const changedKeys =
    writes.length > 0 ? writes.map(({ part }) => `SELECT k FROM ${part}`).join(' UNION ALL ') : '';
  if (fresh.length > 0) {
    const auditRows = fresh.map((i) => {
      const { envelope, lifecycle } = events[i]!;
      return {
        contract_id: envelope.contractId,
        record_id: envelope.recordId,
        trace_id: envelope.traceId,
        record_type: envelope.recordType,
        lifecycle,
        natural_key: envelope.naturalKey,
        schema_version: envelope.schemaVersion,
        occurred_at: envelope.occurredAt,
        payload: envelope.payload,
        // null: not its key's winner, so not applied whatever the writes did
        row_key: inSequence.has(i) ? keyOf(m, { event: events[i]!, row: rows[i]! }) : null,
      };
    });
    cte(auditSql(changedKeys), JSON.stringify(auditRows));
  }
  // Every slot's position in one statement (one row a slot), so the statement's text
  // does not depend on how many partitions the batch spans.
  const positions = positionsAfter(events);
  if (positions.length > 0)
    cte(
      STORE_POSITION_SQL,
      JSON.stringify(
        positions.map(({ slot: at, position }) => ({
          consumer_group: at.consumerGroup,
          topic: at.topic,
          partition: at.partition,
          next_offset: position.nextOffset,
          last_record_id: position.lastRecordId,
          last_published_at: position.lastPublishedAt ?? null,
        })),
      ),
    );
  const changed = new Set<string>();
  if (parts.length > 0) {
    const text = `WITH ${parts.join(',\n')} ${changedKeys || 'SELECT NULL::text AS k WHERE false'}`;
    const { rows: returned } = await tx.query<{ k: string }>(text, params, preparedAs(text));
    for (const row of returned) changed.add(row.k);
  }
  // keys as the statements return them → natural keys of the events
  for (const { group } of writes)
    for (const winner of group)
      if (changed.has(keyOf(m, winner))) changed.add(`\u0000${winner.event.envelope.naturalKey}`);
  const wasApplied = (i: number) =>
    inSequence.has(i) && changed.has(`\u0000${events[i]!.envelope.naturalKey}`);
  const freshSet = new Set(fresh);
  return events.map((event, i) => {
    if (!freshSet.has(i)) return 'duplicate';
    if (wasApplied(i)) return 'written';
    return event.lifecycle === 'create' ? 'duplicate' : 'stale';
  });
}

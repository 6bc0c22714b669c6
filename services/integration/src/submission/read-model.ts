/**
 * The submission service's read model (`submitted_records`): the current state of every
 * record per (contract, natural key). A create first reserves the key (state `pending`),
 * is published, then becomes `active`; a failed publish releases the reservation, so
 * the read model never lists a record that was not published. Functions take the
 * database handle first.
 */
import type { SqlExecutor } from '@platform/core';
import type { Envelope } from '../contracts/envelope.js';

export interface ReadModelRecord {
  recordId: string;
  contractId: string;
  recordType: string;
  naturalKey: string;
  schemaVersion: number;
  occurredAt: string;
  traceId: string;
  payload: Record<string, string>;
  revision: number;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  record_id: string;
  contract_id: string;
  record_type: string;
  natural_key: string;
  schema_version: number;
  occurred_at: Date;
  trace_id: string;
  payload: Record<string, string> | string;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'record_id, contract_id, record_type, natural_key, schema_version, occurred_at, trace_id, payload, revision, created_at, updated_at';
/** A reservation older than this is considered abandoned (its process died mid-publish). */
const STALE_PENDING = "interval '60 seconds'";

function toRecord(row: Row): ReadModelRecord {
  return {
    recordId: row.record_id,
    contractId: row.contract_id,
    recordType: row.record_type,
    naturalKey: row.natural_key,
    schemaVersion: Number(row.schema_version),
    occurredAt: new Date(row.occurred_at).toISOString(),
    traceId: row.trace_id,
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
    revision: Number(row.revision),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

const envelopeParams = (e: Envelope) => [
  e.contractId,
  e.naturalKey,
  e.recordId,
  e.recordType,
  e.schemaVersion,
  JSON.stringify(e.payload),
  e.occurredAt,
  e.traceId,
];

export type Reservation = { state: 'new' | 'recreate'; revision: number } | { state: 'exists' };

/**
 * Reserves the natural keys of many creates in one statement (the intake write: one
 * place, one statement, so a later outbox row can ride in the same transaction).
 * Per envelope, in order: `new` (first record of the key, revision 1), `recreate` (the
 * key was deleted before; its revision goes on from there, so targets order the new
 * record after the tombstone) or `exists` (an active or in-flight record holds it, or an
 * earlier envelope of this call took the key).
 */
export async function reserveCreates(
  db: SqlExecutor,
  envelopes: Envelope[],
): Promise<Reservation[]> {
  const firstOfKey = new Map<string, number>();
  envelopes.forEach((e, i) => {
    const slot = `${e.contractId}\u0000${e.naturalKey}`;
    if (!firstOfKey.has(slot)) firstOfKey.set(slot, i);
  });
  const unique = [...firstOfKey.values()].map((i) => envelopes[i]!);
  const rows = unique.map((e) => ({
    contract_id: e.contractId,
    natural_key: e.naturalKey,
    record_id: e.recordId,
    record_type: e.recordType,
    schema_version: e.schemaVersion,
    payload: e.payload,
    occurred_at: e.occurredAt,
    trace_id: e.traceId,
  }));
  const { rows: taken } = await db.query<{
    record_id: string;
    inserted: boolean;
    revision: number;
  }>(
    `INSERT INTO submitted_records (contract_id, natural_key, record_id, record_type, schema_version, payload, occurred_at, trace_id, state)
     SELECT r.contract_id, r.natural_key, r.record_id, r.record_type, r.schema_version, r.payload, r.occurred_at, r.trace_id, 'pending'
     FROM jsonb_to_recordset($1::jsonb) AS r(contract_id text, natural_key text, record_id uuid, record_type text,
       schema_version integer, payload jsonb, occurred_at timestamptz, trace_id uuid)
     ON CONFLICT (contract_id, natural_key) DO UPDATE SET record_id = EXCLUDED.record_id, record_type = EXCLUDED.record_type,
       schema_version = EXCLUDED.schema_version, payload = EXCLUDED.payload, occurred_at = EXCLUDED.occurred_at,
       trace_id = EXCLUDED.trace_id, state = 'pending', revision = submitted_records.revision + 1, created_at = now(), updated_at = now()
     WHERE submitted_records.state = 'deleted'
        OR (submitted_records.state = 'pending' AND submitted_records.updated_at < now() - ${STALE_PENDING})
     RETURNING record_id::text AS record_id, (xmax = 0) AS inserted, revision`,
    [JSON.stringify(rows)],
  );
  const byId = new Map(taken.map((row) => [row.record_id.toLowerCase(), row]));
  return envelopes.map((e) => {
    const row = byId.get(e.recordId.toLowerCase());
    return row
      ? { state: row.inserted ? 'new' : 'recreate', revision: Number(row.revision) }
      : { state: 'exists' };
  });
}

/** Undoes reservations whose publish failed (a new key is removed, a re-created one is deleted again). */
export async function releaseCreates(db: SqlExecutor, envelopes: Envelope[]): Promise<void> {
  await db.query(
    `WITH r AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(contract_id text, natural_key text, record_id uuid)),
     gone AS (DELETE FROM submitted_records s USING r
       WHERE s.contract_id = r.contract_id AND s.natural_key = r.natural_key AND s.record_id = r.record_id
         AND s.state = 'pending' AND s.revision = 1 RETURNING s.natural_key)
     UPDATE submitted_records s SET state = 'deleted' FROM r
     WHERE s.contract_id = r.contract_id AND s.natural_key = r.natural_key AND s.record_id = r.record_id
       AND s.state = 'pending' AND s.revision > 1`,
    [
      JSON.stringify(
        envelopes.map((e) => ({
          contract_id: e.contractId,
          natural_key: e.naturalKey,
          record_id: e.recordId,
        })),
      ),
    ],
  );
}

/** Marks published creates active (one statement for many). */
export async function activateAll(db: SqlExecutor, envelopes: Envelope[]): Promise<void> {
  await db.query(
    `UPDATE submitted_records s SET state = 'active', updated_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS r(contract_id text, natural_key text, record_id uuid)
     WHERE s.contract_id = r.contract_id AND s.natural_key = r.natural_key AND s.record_id = r.record_id`,
    [
      JSON.stringify(
        envelopes.map((e) => ({
          contract_id: e.contractId,
          natural_key: e.naturalKey,
          record_id: e.recordId,
        })),
      ),
    ],
  );
}

export async function findActive(
  db: SqlExecutor,
  contractId: string,
  naturalKey: string,
): Promise<ReadModelRecord | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM submitted_records WHERE contract_id = $1 AND natural_key = $2 AND state = 'active'`,
    [contractId, naturalKey],
  );
  return rows[0] && toRecord(rows[0]);
}

/** Records a published update-style event; an event older than the row is ignored. */
export async function applyUpdate(db: SqlExecutor, envelope: Envelope): Promise<void> {
  await db.query(
    `UPDATE submitted_records SET record_id = $3, record_type = $4, schema_version = $5, payload = $6::jsonb,
       occurred_at = $7, trace_id = $8, revision = revision + 1, updated_at = now()
     WHERE contract_id = $1 AND natural_key = $2 AND state = 'active' AND occurred_at <= $7`,
    envelopeParams(envelope),
  );
}

/** Records a published tombstone. */
export async function markDeleted(db: SqlExecutor, envelope: Envelope): Promise<void> {
  await db.query(
    `UPDATE submitted_records SET record_id = $3, record_type = $4, schema_version = $5, occurred_at = $6,
       trace_id = $7, state = 'deleted', revision = revision + 1, updated_at = now()
     WHERE contract_id = $1 AND natural_key = $2 AND state = 'active'`,
    [
      envelope.contractId,
      envelope.naturalKey,
      envelope.recordId,
      envelope.recordType,
      envelope.schemaVersion,
      envelope.occurredAt,
      envelope.traceId,
    ],
  );
}

export async function listActive(
  db: SqlExecutor,
  contractId: string,
  page: { limit: number; offset: number },
): Promise<{ records: ReadModelRecord[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query<Row>(
      `SELECT ${COLUMNS} FROM submitted_records WHERE contract_id = $1 AND state = 'active'
       ORDER BY created_at, natural_key LIMIT $2 OFFSET $3`,
      [contractId, page.limit, page.offset],
    ),
    db.query<{ total: string | number }>(
      "SELECT count(*) AS total FROM submitted_records WHERE contract_id = $1 AND state = 'active'",
      [contractId],
    ),
  ]);
  return { records: list.rows.map(toRecord), total: Number(count.rows[0]?.total ?? 0) };
}

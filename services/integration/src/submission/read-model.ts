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

const COLUMNS = 'record_id, contract_id, record_type, natural_key, schema_version, occurred_at, trace_id, payload, revision, created_at, updated_at';
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
  e.contractId, e.naturalKey, e.recordId, e.recordType, e.schemaVersion, JSON.stringify(e.payload), e.occurredAt, e.traceId,
];

/**
 * Reserves the natural key for a create. `new`: first record of the key; `recreate`: the
 * key was deleted before; `exists`: an active (or in-flight) record holds it.
 */
export async function reserveCreate(db: SqlExecutor, envelope: Envelope): Promise<'new' | 'recreate' | 'exists'> {
  const { rows } = await db.query<{ inserted: boolean }>(
    `INSERT INTO submitted_records (contract_id, natural_key, record_id, record_type, schema_version, payload, occurred_at, trace_id, state)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, 'pending')
     ON CONFLICT (contract_id, natural_key) DO UPDATE SET record_id = EXCLUDED.record_id, record_type = EXCLUDED.record_type,
       schema_version = EXCLUDED.schema_version, payload = EXCLUDED.payload, occurred_at = EXCLUDED.occurred_at,
       trace_id = EXCLUDED.trace_id, state = 'pending', revision = 1, created_at = now(), updated_at = now()
     WHERE submitted_records.state = 'deleted'
        OR (submitted_records.state = 'pending' AND submitted_records.updated_at < now() - ${STALE_PENDING})
     RETURNING (xmax = 0) AS inserted`,
    envelopeParams(envelope),
  );
  if (!rows[0]) return 'exists';
  return rows[0].inserted ? 'new' : 'recreate';
}

/** Undoes a reservation whose publish failed. */
export async function releaseCreate(db: SqlExecutor, envelope: Envelope, reservation: 'new' | 'recreate'): Promise<void> {
  const sql =
    reservation === 'new'
      ? "DELETE FROM submitted_records WHERE contract_id = $1 AND natural_key = $2 AND record_id = $3 AND state = 'pending'"
      : "UPDATE submitted_records SET state = 'deleted' WHERE contract_id = $1 AND natural_key = $2 AND record_id = $3 AND state = 'pending'";
  await db.query(sql, [envelope.contractId, envelope.naturalKey, envelope.recordId]);
}

export async function activate(db: SqlExecutor, envelope: Envelope): Promise<void> {
  await db.query(
    "UPDATE submitted_records SET state = 'active', updated_at = now() WHERE contract_id = $1 AND natural_key = $2 AND record_id = $3",
    [envelope.contractId, envelope.naturalKey, envelope.recordId],
  );
}

export async function findActive(db: SqlExecutor, contractId: string, naturalKey: string): Promise<ReadModelRecord | undefined> {
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
    [envelope.contractId, envelope.naturalKey, envelope.recordId, envelope.recordType, envelope.schemaVersion, envelope.occurredAt, envelope.traceId],
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
    db.query<{ total: string | number }>("SELECT count(*) AS total FROM submitted_records WHERE contract_id = $1 AND state = 'active'", [contractId]),
  ]);
  return { records: list.rows.map(toRecord), total: Number(count.rows[0]?.total ?? 0) };
}

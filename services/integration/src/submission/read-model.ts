/**
 * The submission service's read model (`submitted_records`): the current state of every
 * record per (contract, natural key). A create first reserves the key (state `pending`)
 * in the statement that queues its envelope in the intake outbox (outbox.ts), is
 * published, then becomes `active` when its outbox row is marked sent; a failed publish
 * takes both back, so the read model never lists a record that was not published. Functions take the
 * database handle first.
 */
import type { SqlExecutor } from '@platform/core';
import type { Envelope } from '../contracts/envelope.js';
import { storedEnvelope } from './outbox.js';

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
  payload: Record<string, string>;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'record_id, contract_id, record_type, natural_key, schema_version, occurred_at, trace_id, payload, revision, created_at, updated_at';

function toRecord(row: Row): ReadModelRecord {
  return {
    recordId: row.record_id,
    contractId: row.contract_id,
    recordType: row.record_type,
    naturalKey: row.natural_key,
    schemaVersion: Number(row.schema_version),
    occurredAt: new Date(row.occurred_at).toISOString(),
    traceId: row.trace_id,
    payload: row.payload,
    revision: Number(row.revision),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export type Reservation = { state: 'new' | 'recreate'; revision: number } | { state: 'exists' };

/** A create to reserve: its envelope and the topic it goes to. */
export interface QueuedCreate {
  envelope: Envelope;
  topic: string;
  /** `storedEnvelope(envelope)` serialised, when the caller has it already (it publishes the same text). */
  storedJson?: string;
}

/**
 * Reserves the natural keys of many creates and queues their envelopes in the intake
 * outbox, in one statement (one transaction, one round trip for all the creates in
 * flight). Per create, in order: `new` (first record of the key, revision 1),
 * `recreate` (the key was deleted before; its revision goes on from there, so targets
 * order the new record after the tombstone) or `exists` (an active or in-flight record
 * holds it, or an earlier create of this call took the key; nothing queued). A pending
 * reservation is never taken over: its outbox row is published by the relay or taken
 * back, so it always resolves.
 *
 * Each create is sent as its topic and its stored envelope only (the read model's
 * columns are read out of the envelope by the statement): the envelope text is the one
 * the request publishes, serialised once, and the payload crosses once, not twice.
 */
export async function reserveCreates(
  db: SqlExecutor,
  creates: QueuedCreate[],
  owner: string,
): Promise<Reservation[]> {
  const firstOfKey = new Map<string, number>();
  creates.forEach(({ envelope: e }, i) => {
    const slot = `${e.contractId}\u0000${e.naturalKey}`;
    if (!firstOfKey.has(slot)) firstOfKey.set(slot, i);
  });
  let rows = '';
  for (const i of firstOfKey.values()) {
    const { envelope, topic, storedJson } = creates[i]!;
    rows += `${rows ? ',' : '['}{"topic":${JSON.stringify(topic)},"e":${storedJson ?? JSON.stringify(storedEnvelope(envelope))}}`;
  }
  const { rows: taken } = await db.query<{
    record_id: string;
    inserted: boolean;
    revision: number;
  }>(
    `WITH r AS (SELECT e->>'contractId' AS contract_id, e->>'naturalKey' AS natural_key, (e->>'recordId')::uuid AS record_id,
       e->>'recordType' AS record_type, (e->>'schemaVersion')::integer AS schema_version, e->'payload' AS payload,
       (e->>'occurredAt')::timestamptz AS occurred_at, (e->>'traceId')::uuid AS trace_id, topic, e AS envelope
       FROM jsonb_to_recordset($1::jsonb) AS j(topic text, e jsonb)),
     taken AS (
       INSERT INTO submitted_records (contract_id, natural_key, record_id, record_type, schema_version, payload, occurred_at, trace_id, state)
       SELECT r.contract_id, r.natural_key, r.record_id, r.record_type, r.schema_version, r.payload, r.occurred_at, r.trace_id, 'pending'
       FROM r
       ON CONFLICT (contract_id, natural_key) DO UPDATE SET record_id = EXCLUDED.record_id, record_type = EXCLUDED.record_type,
         schema_version = EXCLUDED.schema_version, payload = EXCLUDED.payload, occurred_at = EXCLUDED.occurred_at,
         trace_id = EXCLUDED.trace_id, state = 'pending', revision = submitted_records.revision + 1, created_at = now(), updated_at = now()
       WHERE submitted_records.state = 'deleted'
       RETURNING record_id, (xmax = 0) AS inserted, revision
     ), queued AS (
       INSERT INTO intake_outbox (record_id, contract_id, natural_key, kind, topic, envelope, revision, owner)
       SELECT r.record_id, r.contract_id, r.natural_key, 'create', r.topic, r.envelope, taken.revision, $2
       FROM taken JOIN r ON r.record_id = taken.record_id
       RETURNING seq
     ), unsent AS (INSERT INTO intake_outbox_unsent (seq) SELECT seq FROM queued)
     SELECT record_id::text AS record_id, inserted, revision FROM taken`,
    [`${rows}]`, owner],
    // Every request's micro-batch runs it: parsed and planned once a session. Its plan
    // does not depend on the tables' size (inserts; conflicts found by the primary key).
    { prepareAs: 'integration_reserve_creates' },
  );
  const byId = new Map(taken.map((row) => [row.record_id.toLowerCase(), row]));
  return creates.map(({ envelope: e }) => {
    const row = byId.get(e.recordId.toLowerCase());
    return row
      ? { state: row.inserted ? 'new' : 'recreate', revision: Number(row.revision) }
      : { state: 'exists' };
  });
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

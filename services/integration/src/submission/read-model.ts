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
import { intakeTurn, storedEnvelope, type SentPosition } from './outbox.js';

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
  return reserveAndMarkSent(db, creates, [], owner);
}

/**
 * One turn of the intake (migration 008's `intake_turn`): `positions` marked sent
 * (`markSent`), then `creates` reserved (`reserveCreates`), in one round trip and one
 * commit where each was its own. Returns the creates' reservations, in order.
 */
export async function reserveAndMarkSent(
  db: SqlExecutor,
  creates: QueuedCreate[],
  positions: SentPosition[],
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
  const taken = await intakeTurn(db, positions, false, rows ? `${rows}]` : null, owner);
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

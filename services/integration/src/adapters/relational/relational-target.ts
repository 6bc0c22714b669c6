/**
 * The relational target (spec 2.6, 6): generic `records` rows or a shaped table per
 * attachment, plus one append-only audit row per event. Every event runs in one
 * transaction: the write, then the audit insert, whose uniqueness per attachment and
 * recordId is the idempotency gate (a redelivery rolls back and counts as a duplicate):
 * - create: insert, any conflict (recordId or natural key) does nothing;
 * - update: upsert on the natural key that leaves a newer row alone;
 * - tombstone: delete, or soft-delete (deleted_at), unless the row is newer.
 */
import { createHash } from 'node:crypto';
import type { SqlDatabase, SqlExecutor } from '@platform/core';
import type { AdapterTarget, TargetEvent, WriteOutcome } from '../runtime/adapter-target.js';
import { snakeCase, type AttachmentView } from '../runtime/attachment.js';
import { UnmappableDataError } from '../runtime/failures.js';
import { writeRelationalBatch } from './batch-write.js';
import { q, type GenericMapping, type Mapping, type Row, type ShapedMapping } from './mapping.js';
import { parseRelationalConfig, RELATIONAL_CONFIG_SCHEMA } from './relational-config.js';
import { tableColumns, validateInternsTable } from './shaped-table.js';
import { inTransaction } from './transaction.js';

class AlreadyApplied extends Error {}

const CONTRACT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const GENERIC_TABLE_DDL = (table: string) => `CREATE TABLE IF NOT EXISTS ${q(table)} (
  record_id uuid PRIMARY KEY, contract_id text NOT NULL, record_type text NOT NULL, natural_key text NOT NULL,
  payload jsonb NOT NULL, occurred_at timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(), deleted_at timestamptz, UNIQUE (contract_id, natural_key))`;

export const RELATIONAL_DESCRIPTION =
  'Writes records to SQL tables: the generic records table or a shaped per-contract table, with an append-only audit log.';

/** Payload → the row the write takes: generic `{payload}`, shaped one value per column (scalars only). */
function transform(mapping: Mapping, event: TargetEvent): Row {
  const { payload } = event.envelope;
  if (mapping.mode === 'generic') return { payload };
  const row: Row = {};
  for (const { column, field } of mapping.columns) {
    const value = payload[field];
    if (value !== undefined && value !== null && typeof value === 'object') {
      throw new UnmappableDataError(`field ${field} is not a scalar`);
    }
    row[column] = value === undefined ? null : value;
  }
  if (mapping.keyColumn === 'natural_key') row.natural_key = event.envelope.naturalKey;
  else row[mapping.keyColumn] ??= event.envelope.naturalKey;
  return row;
}

export function createRelationalTarget(db: SqlDatabase): AdapterTarget<Mapping, Row> {
  /** Appends the audit row; false when this attachment already audited the event (a redelivery). */
  const auditInsert = async (tx: SqlExecutor, mapping: Mapping, event: TargetEvent, applied: boolean): Promise<boolean> => {
    const { envelope } = event;
    const { rowCount } = await tx.query(
      `INSERT INTO audit_log (attachment_id, contract_id, record_id, trace_id, record_type, lifecycle, natural_key,
         schema_version, occurred_at, applied, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)
       ON CONFLICT (attachment_id, record_id) DO NOTHING`,
      [mapping.attachmentId, envelope.contractId, envelope.recordId, envelope.traceId, envelope.recordType, event.lifecycle,
        envelope.naturalKey, envelope.schemaVersion, envelope.occurredAt, applied, JSON.stringify(envelope.payload)],
    );
    return rowCount > 0;
  };

  const writeGeneric = async (tx: SqlExecutor, m: GenericMapping, row: Row, event: TargetEvent): Promise<number> => {
    const { envelope } = event;
    const t = q(m.table);
    if (event.lifecycle === 'tombstone') {
      const sql =
        m.tombstone === 'delete'
          ? `DELETE FROM ${t} WHERE contract_id = $1 AND natural_key = $2 AND occurred_at <= $3`
          : `UPDATE ${t} SET deleted_at = $3, occurred_at = $3, updated_at = now() WHERE contract_id = $1 AND natural_key = $2 AND occurred_at <= $3`;
      return (await tx.query(sql, [envelope.contractId, envelope.naturalKey, envelope.occurredAt])).rowCount;
    }
    const params = [envelope.recordId, envelope.contractId, envelope.recordType, envelope.naturalKey, JSON.stringify(row.payload), envelope.occurredAt];
    const insert = `INSERT INTO ${t} (record_id, contract_id, record_type, natural_key, payload, occurred_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`;
    const sql =
      event.lifecycle === 'create'
        ? `${insert} ON CONFLICT DO NOTHING`
        : `${insert} ON CONFLICT (contract_id, natural_key) DO UPDATE SET record_id = EXCLUDED.record_id,
             record_type = EXCLUDED.record_type, payload = EXCLUDED.payload, occurred_at = EXCLUDED.occurred_at,
             updated_at = now(), deleted_at = NULL
           WHERE ${t}.occurred_at <= EXCLUDED.occurred_at`;
    return (await tx.query(sql, params)).rowCount;
  };

  const writeShaped = async (tx: SqlExecutor, m: ShapedMapping, row: Row, event: TargetEvent): Promise<number> => {
    const { envelope } = event;
    const t = q(m.table);
    if (event.lifecycle === 'tombstone') {
      const sql =
        m.tombstone === 'delete'
          ? `DELETE FROM ${t} WHERE ${q(m.keyColumn)} = $1 AND created_at <= $2`
          : `UPDATE ${t} SET deleted_at = $2, created_at = $2 WHERE ${q(m.keyColumn)} = $1 AND created_at <= $2`;
      return (await tx.query(sql, [envelope.naturalKey, envelope.occurredAt])).rowCount;
    }
    const columns = ['record_id', ...m.columns.map((c) => c.column), 'created_at'];
    const values = [envelope.recordId, ...m.columns.map((c) => row[c.column] ?? null), envelope.occurredAt];
    const insert = `INSERT INTO ${t} (${columns.map(q).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
    const updates = columns.filter((c) => c !== m.keyColumn).map((c) => `${q(c)} = EXCLUDED.${q(c)}`);
    if (m.tombstone === 'soft-delete') updates.push('deleted_at = NULL');
    const sql =
      event.lifecycle === 'create'
        ? `${insert} ON CONFLICT DO NOTHING`
        : `${insert} ON CONFLICT (${q(m.keyColumn)}) DO UPDATE SET ${updates.join(', ')} WHERE ${t}.created_at <= EXCLUDED.created_at`;
    return (await tx.query(sql, values)).rowCount;
  };

  const ensureQueryableIndexes = async (table: string, attachment: AttachmentView) => {
    const { contract } = attachment;
    if (!CONTRACT_ID.test(contract.contractId)) throw new UnmappableDataError(`contract id ${contract.contractId} cannot name an index`);
    for (const field of contract.fields.filter((f) => f.queryable)) {
      if (!FIELD_NAME.test(field.name)) throw new UnmappableDataError(`field ${field.name} cannot be indexed`);
      const hash = createHash('sha256').update(`${table}/${contract.contractId}/${field.name}`).digest('hex').slice(0, 10);
      const name = `${table.slice(0, 20)}_q_${snakeCase(field.name).slice(0, 20)}_${hash}`;
      // Identifiers and literals were checked against strict patterns above; DDL takes no parameters.
      await db.query(
        `CREATE INDEX IF NOT EXISTS ${q(name)} ON ${q(table)} ((payload->>'${field.name}')) WHERE contract_id = '${contract.contractId}'`,
      );
    }
  };

  return {
    type: 'relational',
    description: RELATIONAL_DESCRIPTION,
    configSchema: RELATIONAL_CONFIG_SCHEMA,
    async start() {
      await validateInternsTable(db);
    },
    async resolveMapping(attachment): Promise<Mapping> {
      const config = parseRelationalConfig(attachment.config);
      if (config.mode === 'generic') {
        await db.query(GENERIC_TABLE_DDL(config.table));
        await ensureQueryableIndexes(config.table, attachment);
        return { ...config, mode: 'generic', attachmentId: attachment.attachmentId };
      }
      const actual = await tableColumns(db, config.table);
      if (actual.size === 0) throw new UnmappableDataError(`shaped table ${config.table} does not exist`);
      // Consumer tolerant: a field added by a later contract version and not (yet) a column
      // is left out; required fields, the key and the envelope columns must be there.
      const fields = attachment.contract.fields.map((field) => ({ column: snakeCase(field.name), field: field.name, required: field.required }));
      const columns = fields.filter((c) => actual.has(c.column)).map(({ column, field }) => ({ column, field }));
      const missing = ['record_id', 'created_at', ...fields.filter((c) => c.required).map((c) => c.column)].filter((c) => !actual.has(c));
      if (config.tombstone === 'soft-delete' && !actual.has('deleted_at')) missing.push('deleted_at');
      if (missing.length > 0) throw new UnmappableDataError(`shaped table ${config.table} lacks columns: ${missing.join(', ')}`);
      const keyFields = attachment.contract.naturalKey.fields;
      const keyColumn = keyFields.length === 1 ? snakeCase(keyFields[0]!) : 'natural_key';
      if (!actual.has(keyColumn)) throw new UnmappableDataError(`shaped table ${config.table} has no key column ${keyColumn}`);
      return { ...config, mode: 'shaped', attachmentId: attachment.attachmentId, columns, keyColumn };
    },
    // The gate is the audit row's uniqueness, checked inside the write's transaction (one
    // round trip less than a separate look-up, and race-free).
    isDuplicate: async () => false,
    transform,
    async write(mapping, row, event): Promise<WriteOutcome> {
      try {
        return await inTransaction(db, async (tx) => {
          const changed =
            mapping.mode === 'generic' ? await writeGeneric(tx, mapping, row, event) : await writeShaped(tx, mapping, row, event);
          const applied = changed > 0;
          // A redelivered event: roll the (idempotent) write back and report the duplicate.
          if (!(await auditInsert(tx, mapping, event, applied))) throw new AlreadyApplied();
          return applied ? 'written' : event.lifecycle === 'create' ? 'duplicate' : 'stale';
        });
      } catch (error) {
        if (error instanceof AlreadyApplied) return 'duplicate';
        throw error;
      }
    },
    async writeBatch(mapping, events) {
      const rows = events.map((event) => transform(mapping, event));
      return inTransaction(db, (tx) => writeRelationalBatch(tx, mapping, events, rows));
    },
    async listInterns() {
      const { rows } = await db.query(
        `SELECT record_id, intern_id, first_name, last_name, email, college, department, mentor,
                start_date::text AS start_date, status, created_at
         FROM interns WHERE deleted_at IS NULL ORDER BY created_at, intern_id LIMIT 1000`,
      );
      return rows.map((row) => ({ ...row, created_at: new Date(row.created_at as string).toISOString() }));
    },
    ping: () => db.ping(),
  };
}

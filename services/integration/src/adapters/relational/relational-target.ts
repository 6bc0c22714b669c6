/**
 * The relational target (spec 2.6, 6): generic `records` rows or a shaped table per
 * attachment, plus one append-only audit row per event. A batch (or one event) runs in
 * one transaction (`batch-write.ts`; the batches of one consumer pass share one,
 * `pass-writer.ts`): the audit rows, unique per attachment and
 * recordId, are the idempotency gate (a redelivered event is a duplicate), and
 * - create: insert, any conflict (recordId or natural key) does nothing — with a
 *   revision, an upsert once older revisions of the key are ruled out;
 * - update: upsert on the natural key that leaves a newer row alone;
 * - tombstone: delete, or soft-delete (deleted_at), unless the row is newer.
 */
import { createHash } from 'node:crypto';
import type { SqlDatabase } from '@platform/core';
import type { AdapterTarget, TargetEvent, WriteOutcome } from '../runtime/adapter-target.js';
import { alreadyApplied } from '../runtime/applied-position.js';
import { snakeCase, type AttachmentView } from '../runtime/attachment.js';
import { UnmappableDataError } from '../runtime/failures.js';
import { readRelationalPosition, writeRelationalBatch } from './batch-write.js';
import { q, type Mapping, type Row } from './mapping.js';
import { createPassWriter } from './pass-writer.js';
import { parseRelationalConfig, RELATIONAL_CONFIG_SCHEMA } from './relational-config.js';
import { tableColumns, validateInternsTable } from './shaped-table.js';
import { allowedTables, targetTable, type TargetTable } from './target-table.js';
import { inTransaction } from './transaction.js';

const CONTRACT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const GENERIC_TABLE_DDL = (table: TargetTable) => `CREATE TABLE IF NOT EXISTS ${table.sql} (
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

export interface RelationalTargetOptions {
  /** Tables of the current schema attachments may write (`allowedTables`); any other name is a table of the contract's own schema. @defaultValue records, interns */
  allowed?: ReadonlySet<string>;
}

export function createRelationalTarget(
  db: SqlDatabase,
  options: RelationalTargetOptions = {},
): AdapterTarget<Mapping, Row> {
  const allowed = options.allowed ?? allowedTables();
  const writePass = createPassWriter(db);
  const ensureQueryableIndexes = async (table: TargetTable, attachment: AttachmentView) => {
    const { contract } = attachment;
    if (!CONTRACT_ID.test(contract.contractId))
      throw new UnmappableDataError(`contract id ${contract.contractId} cannot name an index`);
    for (const field of contract.fields.filter((f) => f.queryable)) {
      if (!FIELD_NAME.test(field.name))
        throw new UnmappableDataError(`field ${field.name} cannot be indexed`);
      const hash = createHash('sha256')
        .update(`${table.sql}/${contract.contractId}/${field.name}`)
        .digest('hex')
        .slice(0, 10);
      const name = `${table.table.slice(0, 20)}_q_${snakeCase(field.name).slice(0, 20)}_${hash}`;
      // Identifiers and literals were checked against strict patterns above; DDL takes no parameters.
      await db.query(
        `CREATE INDEX IF NOT EXISTS ${q(name)} ON ${table.sql} ((payload->>'${field.name}')) WHERE contract_id = '${contract.contractId}'`,
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
      const target = targetTable(config.table, attachment.contract.contractId, allowed);
      if (config.mode === 'generic') {
        if (target.schema) await db.query(`CREATE SCHEMA IF NOT EXISTS ${q(target.schema)}`);
        await db.query(GENERIC_TABLE_DDL(target));
        await ensureQueryableIndexes(target, attachment);
        return {
          ...config,
          mode: 'generic',
          attachmentId: attachment.attachmentId,
          sqlTable: target.sql,
        };
      }
      const actual = await tableColumns(db, config.table, target.schema);
      if (actual.size === 0)
        throw new UnmappableDataError(`shaped table ${config.table} does not exist`);
      // Consumer tolerant: a field added by a later contract version and not (yet) a column
      // is left out; required fields, the key and the envelope columns must be there.
      const fields = attachment.contract.fields.map((field) => ({
        column: snakeCase(field.name),
        field: field.name,
        required: field.required,
      }));
      const columns = fields
        .filter((c) => actual.has(c.column))
        .map(({ column, field }) => ({ column, field }));
      const missing = [
        'record_id',
        'created_at',
        ...fields.filter((c) => c.required).map((c) => c.column),
      ].filter((c) => !actual.has(c));
      if (config.tombstone === 'soft-delete' && !actual.has('deleted_at'))
        missing.push('deleted_at');
      if (missing.length > 0)
        throw new UnmappableDataError(
          `shaped table ${config.table} lacks columns: ${missing.join(', ')}`,
        );
      const keyFields = attachment.contract.naturalKey.fields;
      const keyColumn = keyFields.length === 1 ? snakeCase(keyFields[0]!) : 'natural_key';
      if (!actual.has(keyColumn))
        throw new UnmappableDataError(
          `shaped table ${config.table} has no key column ${keyColumn}`,
        );
      return {
        ...config,
        mode: 'shaped',
        attachmentId: attachment.attachmentId,
        sqlTable: target.sql,
        columns,
        keyColumn,
      };
    },
    // The gate is the audit row's uniqueness, checked inside the write's transaction (one
    // round trip less than a separate look-up, and race-free).
    isDuplicate: async () => false,
    transform,
    // One event is a batch of one: the same statements, the same rules.
    async write(mapping, row, event): Promise<WriteOutcome> {
      const [outcome] = await inTransaction(db, (tx) =>
        writeRelationalBatch(tx, mapping, [event], [row]),
      );
      return outcome!;
    },
    // The batches of one consumer pass share a transaction (pass-writer.ts).
    async writeBatch(mapping, events) {
      const rows = events.map((event) => transform(mapping, event));
      return writePass(mapping, events, rows);
    },
    appliedPosition: (mapping, slot) => readRelationalPosition(db, mapping.attachmentId, slot),
    // The audit keeps every id it applied (append-only): the rule of `alreadyApplied`
    // with no offset below which ids are dropped.
    async appliedOf(mapping, events) {
      const { rows } = await db.query<{ record_id: string }>(
        'SELECT record_id::text AS record_id FROM audit_log WHERE attachment_id = $1 AND record_id = ANY($2::uuid[])',
        [mapping.attachmentId, events.map((event) => event.envelope.recordId)],
      );
      const audited = new Set(rows.map((row) => row.record_id.toLowerCase()));
      return alreadyApplied(events, (id) => audited.has(id.toLowerCase()), undefined);
    },
    async listInterns() {
      const { rows } = await db.query(
        `SELECT record_id, intern_id, first_name, last_name, email, college, department, mentor,
                start_date::text AS start_date, status, created_at
         FROM interns WHERE deleted_at IS NULL ORDER BY created_at, intern_id LIMIT 1000`,
      );
      return rows.map((row) => ({
        ...row,
        created_at: new Date(row.created_at as string).toISOString(),
      }));
    },
    ping: () => db.ping(),
  };
}

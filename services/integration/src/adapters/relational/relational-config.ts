/** Attachment config of the `relational` type (spec 2.4): table, write mode, tombstone retention. */
import { UnmappableDataError } from '../runtime/failures.js';

export interface RelationalConfig {
  mode: 'generic' | 'shaped';
  table: string;
  tombstone: 'delete' | 'soft-delete';
}

export const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The platform's own tables (control plane, submission read model, SQL broker, dead
 * letters): an attachment never writes them (issue 15). A test checks this list against
 * the tables the migrations create.
 */
export const PLATFORM_TABLES: readonly string[] = [
  'adapter_attachments',
  'adapter_types',
  'audit_log',
  'broker_group_offsets',
  'broker_messages',
  'broker_partitions',
  'broker_topics',
  'contract_versions',
  'contracts',
  'dead_letters',
  'intake_outbox',
  'intake_outbox_unsent',
  'platform_seeds',
  'relational_key_revisions',
  'relational_offsets',
  'schema_migrations',
  'submitted_records',
];

export const RELATIONAL_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  properties: {
    mode: {
      type: 'string',
      enum: ['generic', 'shaped'],
      description:
        'Write mode: "generic" lands every record in the records table (payload as JSON); "shaped" writes one column per payload field into a dedicated table.',
    },
    table: {
      type: 'string',
      pattern: IDENTIFIER.source,
      not: { enum: PLATFORM_TABLES },
      default: 'records',
      description:
        'Target table (lower-case SQL identifier; never one of the platform\'s own tables). "records", "interns" and the operator\'s RELATIONAL_ALLOWED_TABLES are tables of the database\'s current schema; any other name is a table of the contract\'s own schema (contract_<contractId>). Generic mode: created if absent. Shaped mode: an existing table with record_id, created_at and one snake_case column per contract field.',
    },
    tombstone: {
      type: 'string',
      enum: ['delete', 'soft-delete'],
      default: 'delete',
      description:
        'Retention of tombstones: "delete" removes the row, "soft-delete" keeps it and sets deleted_at.',
    },
  },
} as const;

export function parseRelationalConfig(config: Record<string, unknown>): RelationalConfig {
  const mode = config.mode;
  const table = config.table ?? 'records';
  const tombstone = config.tombstone ?? 'delete';
  if (mode !== 'generic' && mode !== 'shaped')
    throw new UnmappableDataError(`relational config: unknown mode ${String(mode)}`);
  if (typeof table !== 'string' || !IDENTIFIER.test(table))
    throw new UnmappableDataError(`relational config: invalid table ${String(table)}`);
  if (PLATFORM_TABLES.includes(table))
    throw new UnmappableDataError(`relational config: ${table} is a table of the platform itself`);
  if (tombstone !== 'delete' && tombstone !== 'soft-delete')
    throw new UnmappableDataError(`relational config: invalid tombstone ${String(tombstone)}`);
  return { mode, table, tombstone };
}

/**
 * Where a relational attachment's table lives (issue 15, "targets stay in their lane"):
 * a table on the allow-list — the adapter's own landing tables `records` and `interns`,
 * plus what the operator lists in `RELATIONAL_ALLOWED_TABLES` — is the table of that name
 * in the database's current schema; any other name is a table in the contract's own
 * schema, which the adapter creates. So an attachment can reach nothing outside its
 * contract's schema but what an operator allowed, and never the platform's own tables.
 */
import { createHash } from 'node:crypto';
import { UnmappableDataError } from '../runtime/failures.js';
import { IDENTIFIER, PLATFORM_TABLES } from './relational-config.js';

/** The adapter's own landing tables (its migrations create them). */
export const OWN_TABLES: readonly string[] = ['records', 'interns'];

export interface TargetTable {
  /** Undefined: the current schema (an allowed table). */
  schema: string | undefined;
  table: string;
  /** The quoted, qualified name statements use. */
  sql: string;
}

/**
 * The schema of a contract's tables: `contract_<id>` for an id of lower-case letters,
 * digits and `_` that fits; otherwise `contractx_<id, - as _, cut>_<hash>` — the `x`
 * keeps the two forms apart, the hash keeps `a-b` and `a_b` apart.
 */
export function contractSchema(contractId: string): string {
  const plain = `contract_${contractId}`;
  if (/^[a-z0-9_]+$/.test(contractId) && IDENTIFIER.test(plain)) return plain;
  const hash = createHash('sha256').update(contractId).digest('hex').slice(0, 10);
  const readable = contractId
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 40);
  return `contractx_${readable}_${hash}`;
}

/** The allow-list an adapter works with: its own tables and the operator's (never a platform table). */
export function allowedTables(operatorList: readonly string[] = []): ReadonlySet<string> {
  for (const table of operatorList) {
    if (!IDENTIFIER.test(table))
      throw new Error(`RELATIONAL_ALLOWED_TABLES: ${table} is not a lower-case SQL identifier`);
    if (PLATFORM_TABLES.includes(table))
      throw new Error(`RELATIONAL_ALLOWED_TABLES: ${table} is a table of the platform itself`);
  }
  return new Set([...OWN_TABLES, ...operatorList]);
}

export function targetTable(
  table: string,
  contractId: string,
  allowed: ReadonlySet<string>,
): TargetTable {
  if (PLATFORM_TABLES.includes(table))
    throw new UnmappableDataError(`relational config: ${table} is a table of the platform itself`);
  if (allowed.has(table)) return { schema: undefined, table, sql: `"${table}"` };
  const schema = contractSchema(contractId);
  return { schema, table, sql: `"${schema}"."${table}"` };
}

/**
 * The read-only SQL tool's guard and runner. A query runs only when DuckDB's own parser
 * agrees it is exactly one SELECT:
 *   1. `extractStatements` finds exactly one statement (no stacking after `;`);
 *   2. the prepared statement's type is SELECT (not DELETE behind a WITH, not COPY, …);
 *   3. `json_serialize_sql` — which serializes only SELECT statements — accepts it and
 *      finds one statement (this catches PRAGMA and CALL, which prepare as SELECT).
 * It then runs on the read-only warehouse connection (no file access, no extensions,
 * locked settings) with a row cap and a time limit.
 * Errors: `SQL_REJECTED` (not one SELECT), `SQL_FAILED` (DuckDB refused or failed it),
 * `QUERY_TIMEOUT`, `WAREHOUSE_NOT_BUILT`.
 */
import { StatementType } from '@duckdb/node-api';
import { isAppError } from '@platform/core';
import { errors } from '../errors.js';
import type { QueryOutput, Warehouse } from '../warehouse/warehouse.js';

export interface ReadOnlySqlOptions {
  /** @defaultValue 500 */
  maxRows?: number;
  /** @defaultValue 5000 */
  timeoutMs?: number;
}

export const MAX_SQL_LENGTH = 10_000;
const SELECT_NODES = new Set([
  'SELECT_NODE',
  'SET_OPERATION_NODE',
  'RECURSIVE_CTE_NODE',
  'CTE_NODE',
]);

export async function runReadOnlySql(
  warehouse: Warehouse,
  sql: string,
  options: ReadOnlySqlOptions = {},
): Promise<QueryOutput> {
  if (sql.trim() === '') throw errors.SQL_REJECTED({ detail: 'The query is empty' });
  if (sql.length > MAX_SQL_LENGTH)
    throw errors.SQL_REJECTED({ detail: `The query is longer than ${MAX_SQL_LENGTH} characters` });
  await assertSingleSelect(warehouse, sql);
  try {
    return await warehouse.query(sql, undefined, {
      maxRows: options.maxRows ?? 500,
      timeoutMs: options.timeoutMs ?? 5000,
    });
  } catch (error) {
    if (isAppError(error)) throw error;
    throw errors.SQL_FAILED({ detail: `The query failed: ${duckDbMessage(error)}`, cause: error });
  }
}

async function assertSingleSelect(warehouse: Warehouse, sql: string): Promise<void> {
  let parsed: { count: number; statementType?: number };
  try {
    parsed = await warehouse.inspect(sql);
  } catch (error) {
    if (isAppError(error)) throw error;
    throw errors.SQL_REJECTED({
      detail: `The query was rejected: ${duckDbMessage(error)}`,
      cause: error,
    });
  }
  if (parsed.count !== 1) {
    throw errors.SQL_REJECTED({
      detail: `Exactly one statement is allowed (found ${parsed.count})`,
    });
  }
  if (parsed.statementType !== StatementType.SELECT) {
    const name = StatementType[parsed.statementType as StatementType] ?? 'unknown';
    throw errors.SQL_REJECTED({ detail: `Only SELECT statements are allowed (found ${name})` });
  }
  const { rows } = await warehouse.query('SELECT json_serialize_sql($1::VARCHAR) AS tree', [sql]);
  const tree = JSON.parse(String(rows[0]?.tree)) as {
    error: boolean;
    statements?: Array<{ node?: { type?: string } }>;
  };
  const nodeType = tree.statements?.[0]?.node?.type;
  if (tree.error || tree.statements?.length !== 1 || !nodeType || !SELECT_NODES.has(nodeType)) {
    throw errors.SQL_REJECTED({ detail: 'Only SELECT statements are allowed' });
  }
}

/** DuckDB's message without internals beyond the first line. */
function duckDbMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}

/**
 * The read-only SQL tool's guard and runner. A query runs only when DuckDB's own parser
 * agrees it is exactly one SELECT:
 *   1. `extractStatements` finds exactly one statement (no stacking after `;`);
 *   2. the prepared statement's type is SELECT (not DELETE behind a WITH, not COPY, …);
 *   3. `json_serialize_sql` — which serializes only SELECT statements — accepts it and
 *      finds one statement (this catches PRAGMA and CALL, which prepare as SELECT).
 *   4. in that tree, every table it reads is in the gold schema (or a CTE of the query
 *      itself), and the only table functions are `range`, `generate_series` and `unnest`:
 *      no system tables, settings or file readers, whatever the engine would allow.
 * It then runs on the read-only warehouse connection (no file access, no extensions,
 * locked settings) with a row cap, a cap on the answer's size in bytes and a time limit,
 * bypassing the result cache (`now()` or `random()` must not answer from an old run), and
 * at most `maxConcurrent` at once in the process (a further query is `SQL_BUSY`).
 * Errors: `SQL_REJECTED` (not one SELECT, or outside gold), `SQL_FAILED` (DuckDB refused
 * or failed it), `SQL_BUSY`, `QUERY_TIMEOUT`, `WAREHOUSE_NOT_BUILT`.
 */
import { StatementType } from '@duckdb/node-api';
import { isAppError } from '@platform/core';
import { errors } from '../errors.js';
import { WAREHOUSE_CATALOG } from '../warehouse/paths.js';
import type { QueryOutput, Warehouse } from '../warehouse/warehouse.js';

export interface ReadOnlySqlOptions {
  /** @defaultValue 500 */
  maxRows?: number;
  /** Most bytes of rows (as JSON) in one answer; rows past it are cut. @defaultValue 1 MiB */
  maxBytes?: number;
  /** @defaultValue 5000 */
  timeoutMs?: number;
}

/** Table functions a query may call: they generate values and read nothing. */
const ALLOWED_TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest']);

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
    const output = await warehouse.query(sql, undefined, {
      maxRows: options.maxRows ?? 500,
      timeoutMs: options.timeoutMs ?? 5000,
      cache: false,
    });
    return capBytes(output, options.maxBytes ?? 1 << 20);
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
  const outside = readsOutsideGold(tree);
  if (outside) throw errors.SQL_REJECTED({ detail: outside });
}

/** Bounds how many SQL tool queries run at once in the process; one more is `SQL_BUSY`. */
export interface SqlGate {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function createSqlGate(maxConcurrent: number): SqlGate {
  let active = 0;
  return {
    async run(work) {
      if (active >= maxConcurrent) {
        throw errors.SQL_BUSY({
          detail: `${maxConcurrent} SQL queries are already running; retry in a moment`,
        });
      }
      active += 1;
      try {
        return await work();
      } finally {
        active -= 1;
      }
    },
  };
}

/** What the statement reads that is not allowed, or undefined. */
export function readsOutsideGold(tree: unknown): string | undefined {
  const cteNames = new Set<string>();
  const tables: Array<{ schema: string; catalog: string; name: string }> = [];
  const functions: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record.type === 'BASE_TABLE') {
      tables.push({
        schema: String(record.schema_name ?? ''),
        catalog: String(record.catalog_name ?? ''),
        name: String(record.table_name ?? ''),
      });
    } else if (record.type === 'TABLE_FUNCTION') {
      const fn = record.function as { function_name?: unknown } | undefined;
      functions.push(String(fn?.function_name ?? ''));
    }
    const cteMap = record.cte_map as { map?: Array<{ key?: unknown }> } | undefined;
    for (const entry of cteMap?.map ?? []) cteNames.add(String(entry.key));
    Object.values(record).forEach(walk);
  };
  walk(tree);
  const fn = functions.find((name) => !ALLOWED_TABLE_FUNCTIONS.has(name.toLowerCase()));
  if (fn !== undefined) return `Table function ${fn}() is not allowed; query the gold tables`;
  for (const table of tables) {
    const inGold =
      table.schema.toLowerCase() === 'gold' &&
      ['', WAREHOUSE_CATALOG].includes(table.catalog.toLowerCase());
    const ownCte = table.schema === '' && table.catalog === '' && cteNames.has(table.name);
    if (!inGold && !ownCte) {
      const name = [table.catalog, table.schema, table.name].filter(Boolean).join('.');
      return `Only tables of the gold schema can be read (raw_data.gold.…); ${name} is not allowed`;
    }
  }
  return undefined;
}

/** The output with rows past `maxBytes` of JSON cut off (and `truncated` set). */
function capBytes(output: QueryOutput, maxBytes: number): QueryOutput {
  let bytes = 0;
  for (const [index, row] of output.rows.entries()) {
    bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
    if (bytes > maxBytes) return { ...output, rows: output.rows.slice(0, index), truncated: true };
  }
  return output;
}

/** DuckDB's message without internals beyond the first line. */
function duckDbMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}

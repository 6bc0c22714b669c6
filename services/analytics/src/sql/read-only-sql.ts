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
 * within the bounds of `SqlGate` (at once in the process and per client, per client and window).
 * Errors: `SQL_REJECTED` (not one SELECT, or outside gold), `SQL_FAILED` (DuckDB refused
 * or failed it), `SQL_BUSY`, `QUERY_TIMEOUT`, `WAREHOUSE_NOT_BUILT`.
 */
import { StatementType } from '@duckdb/node-api';
import { isAppError, type RateLimiter } from '@platform/core';
import { analyticsErrors } from '../errors.js';
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
  if (sql.trim() === '') throw analyticsErrors.SQL_REJECTED({ detail: 'The query is empty' });
  if (sql.length > MAX_SQL_LENGTH)
    throw analyticsErrors.SQL_REJECTED({
      detail: `The query is longer than ${MAX_SQL_LENGTH} characters`,
    });
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
    throw analyticsErrors.SQL_FAILED({
      detail: `The query failed: ${duckDbMessage(error)}`,
      cause: error,
    });
  }
}

async function assertSingleSelect(warehouse: Warehouse, sql: string): Promise<void> {
  let parsed: { count: number; statementType?: number };
  try {
    parsed = await warehouse.inspect(sql);
  } catch (error) {
    if (isAppError(error)) throw error;
    throw analyticsErrors.SQL_REJECTED({
      detail: `The query was rejected: ${duckDbMessage(error)}`,
      cause: error,
    });
  }
  if (parsed.count !== 1) {
    throw analyticsErrors.SQL_REJECTED({
      detail: `Exactly one statement is allowed (found ${parsed.count})`,
    });
  }
  if (parsed.statementType !== StatementType.SELECT) {
    const name = StatementType[parsed.statementType as StatementType] ?? 'unknown';
    throw analyticsErrors.SQL_REJECTED({
      detail: `Only SELECT statements are allowed (found ${name})`,
    });
  }
  const { rows } = await warehouse.query('SELECT json_serialize_sql($1::VARCHAR) AS tree', [sql]);
  const tree = JSON.parse(String(rows[0]?.tree)) as {
    error: boolean;
    statements?: Array<{ node?: { type?: string } }>;
  };
  const nodeType = tree.statements?.[0]?.node?.type;
  if (tree.error || tree.statements?.length !== 1 || !nodeType || !SELECT_NODES.has(nodeType)) {
    throw analyticsErrors.SQL_REJECTED({ detail: 'Only SELECT statements are allowed' });
  }
  const outside = readsOutsideGold(tree);
  if (outside) throw analyticsErrors.SQL_REJECTED({ detail: outside });
}

/**
 * Bounds the SQL tool's queries: at most `maxConcurrent` at once in the process, at most
 * `maxPerClient` at once for one client, and (with a limiter) so many per client and
 * window. A query past a bound is refused at once (`SQL_BUSY`, `SQL_RATE_LIMITED`) rather
 * than queued behind slow ones. `client` names the caller (its API key, else its
 * address); without one only the process bound applies (the agent, whose callers are
 * limited per address by the chat's own rate limit).
 */
export interface SqlGate {
  run<T>(work: () => Promise<T>, client?: string): Promise<T>;
}

export interface SqlGateOptions {
  maxConcurrent: number;
  /** @defaultValue maxConcurrent */
  maxPerClient?: number;
  /** Queries per client and window; undefined: no rate bound. */
  limiter?: RateLimiter | undefined;
}

export function createSqlGate(options: SqlGateOptions): SqlGate {
  const { maxConcurrent, limiter } = options;
  const maxPerClient = options.maxPerClient ?? maxConcurrent;
  let active = 0;
  const activeOf = new Map<string, number>();
  return {
    async run(work, client) {
      if (active >= maxConcurrent) {
        throw analyticsErrors.SQL_BUSY({
          detail: `${maxConcurrent} SQL queries are already running; retry in a moment`,
        });
      }
      if (client !== undefined && (activeOf.get(client) ?? 0) >= maxPerClient) {
        throw analyticsErrors.SQL_BUSY({
          detail: `${maxPerClient} of your SQL queries ${maxPerClient === 1 ? 'is' : 'are'} already running; wait for ${maxPerClient === 1 ? 'it' : 'them'}`,
        });
      }
      // Counted before the await, so two calls of one client cannot both pass the bound.
      active += 1;
      if (client !== undefined) activeOf.set(client, (activeOf.get(client) ?? 0) + 1);
      try {
        if (client !== undefined && limiter) {
          const verdict = await limiter.check(client);
          if (!verdict.allowed)
            throw analyticsErrors.SQL_RATE_LIMITED({
              detail: `Too many SQL queries: at most ${verdict.limit} per client in this window; retry after ${verdict.retryAfterSeconds} seconds`,
            });
        }
        return await work();
      } finally {
        active -= 1;
        if (client !== undefined) {
          const left = (activeOf.get(client) ?? 1) - 1;
          if (left > 0) activeOf.set(client, left);
          else activeOf.delete(client);
        }
      }
    },
  };
}

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

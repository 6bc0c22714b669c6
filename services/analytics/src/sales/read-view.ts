/**
 * Reads one semantic view with its filters and paging: the one use case behind each REST
 * endpoint and each MCP tool. Each view is a plain read of a serving table stored in the
 * view's order. A small view (KPIs, months, years, categories) is answered from its rows
 * held in memory for the build serving (`serving-snapshot.ts`) when its filters allow. A
 * page of the LTV ranking (all customers or one decile, best or worst
 * first) is a range of its row numbers with the build's stored total (`range-read.ts`);
 * other pages are `LIMIT … OFFSET …` of a scan (no sort), with a count of the small
 * table as the filtered total. Values go to DuckDB as parameters, never into the SQL text
 * (the paging bounds, checked integers, are the one exception: see below).
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { WAREHOUSE_CATALOG } from '../warehouse/paths.js';
import type { BuildInfo, Warehouse } from '../warehouse/warehouse.js';
import { READS, type ReadName, type ReadSpec } from './catalog.js';
import { readRange, sqlInteger } from './range-read.js';
import { readSnapshot } from './serving-snapshot.js';

/** The page's extra column that carries the filtered total (no view has a column of that name). */
const TOTAL_COLUMN = '__total_rows';

export type ReadParams = Record<string, number | string | undefined>;

export interface ViewPage {
  data: Record<string, unknown>[];
  meta: {
    view: string;
    count: number;
    total: number;
    limit: number | null;
    offset: number;
    filters: Record<string, number | string>;
    /** The order asked for (`sort`), when the read has a choice. */
    sort?: string;
    /** The build the rows come from. */
    build_id: string;
    /** When that build loaded its data (ISO 8601 UTC). */
    data_as_of: string;
  };
}

export interface ReadOptions {
  /**
   * Answer from the view's rows held in memory (a small view, or the LTV ranking's rows)
   * when the read allows it. @defaultValue true (false: DuckDB computes the page, as the
   * tests compare).
   */
  inMemory?: boolean;
}

export async function readView(
  warehouse: Warehouse,
  name: ReadName,
  params: ReadParams = {},
  options: ReadOptions = {},
): Promise<ViewPage> {
  const spec: ReadSpec = READS[name];
  const qualified = `${WAREHOUSE_CATALOG}.gold.${spec.view}`;
  const filters: Record<string, number | string> = {};
  for (const param of Object.keys(spec.filters)) {
    const value = params[param];
    if (value !== undefined) filters[param] = value;
  }
  const limit = spec.paged ? Number(params.limit ?? spec.params.limit?.default ?? 100) : null;
  const offset = spec.paged ? Number(params.offset ?? 0) : 0;
  // A named order from the catalog (never the client's text); the default is the stored one.
  const sort = typeof params.sort === 'string' ? params.sort : undefined;
  const ready =
    (options.inMemory !== false
      ? await readSnapshot(warehouse, spec, params, limit, offset)
      : undefined) ??
    (limit === null ? undefined : await readRange(warehouse, spec, params, limit, offset, options));
  const { data, total, build } = ready
    ? { data: ready.rows, total: ready.total, build: ready.build }
    : await readRelation(warehouse, spec, params, limit, offset, sort);
  return {
    data,
    meta: {
      view: qualified,
      count: data.length,
      total,
      limit,
      offset,
      filters,
      ...(spec.sorts ? { sort: sort ?? String(spec.params.sort?.default ?? '') } : {}),
      build_id: build.id,
      data_as_of: build.builtAt,
    },
  };
}

/**
 * The general read: the view (or its rollup) with the filters as parameters, paged by
 * `LIMIT`/`OFFSET`, with the filtered total.
 */
async function readRelation(
  warehouse: Warehouse,
  spec: ReadSpec,
  params: ReadParams,
  limit: number | null,
  offset: number,
  sort: string | undefined,
): Promise<{ data: Record<string, unknown>[]; total: number; build: BuildInfo }> {
  const qualified = `${WAREHOUSE_CATALOG}.gold.${spec.view}`;
  const values: DuckDBValue[] = [];
  const conditions: string[] = [];
  const placeholders: Record<string, string> = {};
  for (const [param, condition] of Object.entries(spec.filters)) {
    const value = params[param];
    if (value === undefined) continue;
    values.push(value);
    placeholders[param] = `$${values.length}`;
    conditions.push(condition(placeholders[param]));
  }
  const where = conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
  const rolledUp = spec.rollup?.when.some((param) => params[param] !== undefined);
  // The relation read: the view, or its rows rolled up from a finer table under the filters.
  const relation = rolledUp ? `(${spec.rollup!.from(where)})` : qualified;
  const rowFilter = rolledUp ? '' : where;
  // Paging is written as integer literals, the one exception to "values as parameters":
  // DuckDB plans a parameter LIMIT/OFFSET as a sort and join over the whole relation
  // (EXPLAIN), a literal one as a streaming limit that stops after the page. Both are
  // integers bounded by the schema, checked again here before they become SQL text.
  const paging = limit === null ? '' : ` LIMIT ${sqlInteger(limit)} OFFSET ${sqlInteger(offset)}`;
  const orderBy =
    sort && spec.sorts?.[sort]
      ? ` ORDER BY ${spec.sorts[sort]}`
      : rolledUp
        ? ` ORDER BY ${spec.orderBy}`
        : '';
  // The filtered total rides along as one more column of the page (an uncorrelated
  // subquery, computed once), so a read is one round trip to DuckDB, not two. It is
  // joined to the page after LIMIT/OFFSET, so a deep page does not carry it through
  // every skipped row (measured: that tripled the CPU of a page 93,000 rows deep).
  const totalSql =
    limit === null
      ? undefined
      : (!rolledUp && spec.total?.(placeholders)) ||
        `SELECT count(*) AS total FROM ${relation}${rowFilter}`;
  const pageSql = `SELECT * FROM ${relation}${rowFilter}${orderBy}${paging}`;
  const page = await warehouse.query(
    totalSql ? `SELECT *, (${totalSql}) AS ${TOTAL_COLUMN} FROM (${pageSql})${orderBy}` : pageSql,
    values,
  );
  let total = page.rows.length;
  let data = page.rows;
  if (totalSql) {
    if (page.rows.length > 0) {
      total = Number(page.rows[0]![TOTAL_COLUMN] ?? 0);
      data = page.rows.map(({ [TOTAL_COLUMN]: _total, ...row }) => row);
    } else if (offset > 0) {
      // A page past the end has no row to carry the total.
      total = Number((await warehouse.query(totalSql, values)).rows[0]?.total ?? 0);
    }
  }
  return { data, total, build: page.build };
}

/**
 * A page of a ranked read (`ReadSpec.ranked`: the LTV ranking) as a range of row numbers.
 * The serving table numbers its rows 1…n in the view's order, and the build stores where
 * each segment (an LTV decile, or all customers) starts and how many rows it has; so a
 * page of a segment, in the stored order or its reverse, is `row BETWEEN a AND b`, which
 * DuckDB answers from the one row group its zone maps point to, and its total is known
 * without counting.
 *
 * Measured (EXPLAIN ANALYZE, 100,000 orders): the `LIMIT … OFFSET …` form scans the whole
 * table into a rowid semi-join (DuckDB's late materialization), the first page included.
 *
 * The segments table is read once per opened build (`Warehouse.perBuild`), whether or not
 * the result cache is on: it is the serving table's index, not a cached answer.
 */
import { WAREHOUSE_CATALOG } from '../warehouse/paths.js';
import type { BuildInfo, Warehouse } from '../warehouse/warehouse.js';
import type { ReadSpec } from './catalog.js';

interface Run {
  count: number;
  first: number;
}

export interface RangePage {
  rows: Record<string, unknown>[];
  total: number;
  build: BuildInfo;
}

/**
 * The page, or undefined when the read is not a range (another filter or order, a
 * read without a ranked table), or when a new build opened between the index and the
 * page (the caller reads it the general way).
 */
export async function readRange(
  warehouse: Warehouse,
  spec: ReadSpec,
  params: Record<string, number | string | undefined>,
  limit: number,
  offset: number,
): Promise<RangePage | undefined> {
  const ranked = spec.ranked;
  if (!ranked) return undefined;
  const otherFilter = Object.keys(spec.filters).some(
    (param) => param !== ranked.segment && params[param] !== undefined,
  );
  const sort = params.sort;
  const reverse = sort === ranked.reverseSort;
  if (otherFilter || (sort !== undefined && !reverse && sort !== spec.params.sort?.default))
    return undefined;

  const { table, key, count, first } = ranked.segments;
  const index = await warehouse.perBuild(`segments ${table}`, async () => {
    const output = await warehouse.query(
      `SELECT ${key} AS segment, ${count} AS count, ${first} AS first FROM ${WAREHOUSE_CATALOG}.gold.${table}`,
      [],
      { cache: false },
    );
    const runs = new Map<number | null, Run>(
      output.rows.map((row) => [
        row.segment === null ? null : Number(row.segment),
        { count: Number(row.count), first: Number(row.first) },
      ]),
    );
    return { value: runs, build: output.build };
  });
  const segment = params[ranked.segment];
  const run = index.value.get(segment === undefined ? null : Number(segment)) ?? {
    count: 0,
    first: 1,
  };
  const size = Math.max(0, Math.min(limit, run.count - offset));
  if (size === 0) return { rows: [], total: run.count, build: index.build };
  // Positions offset … offset+size-1 of the run, counted from its start or, reversed, its end.
  const low = reverse ? run.first + run.count - offset - size : run.first + offset;
  const high = low + size - 1;
  const columns = Object.keys(spec.columns).join(', ');
  // Integers computed here from the build's own figures, never a client's text.
  const page = await warehouse.query(
    `SELECT ${columns} FROM ${WAREHOUSE_CATALOG}.gold.${ranked.table} WHERE ${ranked.rowColumn} BETWEEN ${sqlInteger(low)} AND ${sqlInteger(high)} ORDER BY ${ranked.rowColumn}${reverse ? ' DESC' : ''}`,
  );
  if (page.build.id !== index.build.id) return undefined;
  return { rows: page.rows, total: run.count, build: page.build };
}

/** A non-negative safe integer as SQL text; anything else is a programming error. */
export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a page bound: ${value}`);
  return String(value);
}

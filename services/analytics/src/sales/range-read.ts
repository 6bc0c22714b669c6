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
 * the result cache is on: it is the serving table's index, not a cached answer. So is,
 * when the ranking has at most `MAX_HELD_ROWS` rows (about 100,000 orders' customers),
 * the ranking itself: its rows held in row-number order, so a page is a slice of an array
 * instead of a query. Profiled (`node --cpu-prof`, uncached first page): running the
 * range query and fetching its chunk were most of the read's CPU. A larger ranking (a
 * million orders) is not held, for the memory, and its pages stay range queries.
 */
import { WAREHOUSE_CATALOG } from '../warehouse/paths.js';
import type { BuildInfo, Warehouse } from '../warehouse/warehouse.js';
import type { ReadSpec } from './catalog.js';

/** Most ranking rows held in memory (about 200 bytes each as JavaScript objects). */
const MAX_HELD_ROWS = 200_000;
/** Ranking rows read per query while loading (see `loadRanking`). */
const LOAD_CHUNK_ROWS = 2048;

interface Run {
  count: number;
  first: number;
}

export interface RangePage {
  rows: Record<string, unknown>[];
  total: number;
  build: BuildInfo;
}

/** Where each segment of the ranking starts and how many rows it has, for the build now serving. */
function segmentsIndex(
  warehouse: Warehouse,
  ranked: NonNullable<ReadSpec['ranked']>,
): Promise<{ value: Map<number | null, Run>; build: BuildInfo }> {
  const { table, key, count, first } = ranked.segments;
  return warehouse.perBuild(`segments ${table}`, async () => {
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
  options: { inMemory?: boolean } = {},
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

  const index = await segmentsIndex(warehouse, ranked);
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
  const all = index.value.get(null)?.count ?? 0;
  if (options.inMemory !== false && all <= MAX_HELD_ROWS) {
    const held = await heldRanking(warehouse, spec, all);
    const rows = held.value.rows;
    if (rows && held.build.id === index.build.id && high <= rows.length) {
      const slice = rows.slice(low - 1, high);
      return { rows: reverse ? slice.reverse() : slice, total: run.count, build: held.build };
    }
  }
  // Integers computed here from the build's own figures, never a client's text.
  const page = await warehouse.query(
    `SELECT ${columns} FROM ${WAREHOUSE_CATALOG}.gold.${ranked.table} WHERE ${ranked.rowColumn} BETWEEN ${sqlInteger(low)} AND ${sqlInteger(high)} ORDER BY ${ranked.rowColumn}${reverse ? ' DESC' : ''}`,
  );
  if (page.build.id !== index.build.id) return undefined;
  return { rows: page.rows, total: run.count, build: page.build };
}

/** The ranking's rows of one build: `rows` is set once `loaded` has read them. */
export interface HeldRanking {
  rows?: readonly Record<string, unknown>[];
  loaded: Promise<void>;
}

/**
 * The ranking's rows held for the build now serving. The first call starts reading them
 * and returns at once: until they are read (a few hundred ms for 100,000 customers),
 * pages are range queries, so no reader waits for the load. A load that fails leaves the
 * build's pages to range queries.
 */
export async function heldRanking(
  warehouse: Warehouse,
  spec: ReadSpec,
  count: number,
): Promise<{ value: HeldRanking; build: BuildInfo }> {
  return warehouse.perBuild(`rows ${spec.ranked!.table}`, async () => {
    const build = await warehouse.currentBuild();
    const held: HeldRanking = { loaded: Promise.resolve() };
    held.loaded = loadRanking(warehouse, spec, count, build).then(
      (rows) => {
        held.rows = rows;
      },
      () => undefined,
    );
    return { value: held, build };
  });
}

/**
 * Loads the ranking's rows for the build now serving (when it is small enough to hold) and
 * resolves once they are held; `readRange` then answers every page from them.
 */
export async function loadHeldRanking(warehouse: Warehouse, spec: ReadSpec): Promise<void> {
  const ranked = spec.ranked;
  if (!ranked) return;
  const index = await segmentsIndex(warehouse, ranked);
  const all = index.value.get(null)?.count ?? 0;
  if (all > MAX_HELD_ROWS) return;
  const held = await heldRanking(warehouse, spec, all);
  await held.value.loaded;
}

/**
 * Rows 1…count of the ranking, read a few thousand at a time: turning DuckDB's chunks into
 * objects runs on the event loop, and all 93,000 rows at once held it for over a second
 * under load (measured), every request waiting behind it. Undefined when a chunk is not
 * the numbering expected or belongs to another build.
 */
async function loadRanking(
  warehouse: Warehouse,
  spec: ReadSpec,
  count: number,
  build: BuildInfo,
): Promise<Record<string, unknown>[] | undefined> {
  const ranked = spec.ranked!;
  const columns = Object.keys(spec.columns).join(', ');
  const rows: Record<string, unknown>[] = [];
  for (let first = 1; first <= count; first += LOAD_CHUNK_ROWS) {
    const last = Math.min(count, first + LOAD_CHUNK_ROWS - 1);
    const output = await warehouse.query(
      `SELECT ${ranked.rowColumn} AS __row, ${columns} FROM ${WAREHOUSE_CATALOG}.gold.${ranked.table} WHERE ${ranked.rowColumn} BETWEEN ${sqlInteger(first)} AND ${sqlInteger(last)} ORDER BY ${ranked.rowColumn}`,
      [],
      { cache: false },
    );
    if (output.build.id !== build.id) return undefined;
    for (const { __row: row, ...values } of output.rows) {
      if (row !== rows.length + 1) return undefined;
      rows.push(Object.freeze(values));
    }
    // Let waiting requests run between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rows.length === count ? rows : undefined;
}

/** A non-negative safe integer as SQL text; anything else is a programming error. */
export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a page bound: ${value}`);
  return String(value);
}

/**
 * The small views answered from memory. A view whose rows are few (KPIs, months, years,
 * categories: `ReadSpec.inMemory`) is read whole — `SELECT * FROM raw_data.gold.vw_…`,
 * the read's one view — once per opened build (`Warehouse.perBuild`, whether or not the
 * result cache is on: it is the build's serving data, not a cached answer), and each read
 * filters and pages those rows in the view's order. A new build opens a new set, so a
 * snapshot never outlives its build, and the page names the build its rows come from.
 *
 * Measured (`node --cpu-prof` of the bench's server, 100,000 orders): running the view's
 * prepared statement and fetching its chunks was most of an uncached small read's CPU;
 * filtering a few dozen rows in JavaScript is a few microseconds.
 */
import { WAREHOUSE_CATALOG } from '../warehouse/paths.js';
import type { BuildInfo, Warehouse } from '../warehouse/warehouse.js';
import type { ReadSpec } from './catalog.js';

/** A view with more rows than this is not held (a read of it goes to DuckDB). */
const MAX_SNAPSHOT_ROWS = 10_000;

export interface SnapshotPage {
  rows: Record<string, unknown>[];
  total: number;
  build: BuildInfo;
}

/**
 * The page from the view's rows held for the build now serving, or undefined when the
 * read is not one memory answers (a filter without a row test, an order other than the
 * view's, a view not held or too large).
 */
export async function readSnapshot(
  warehouse: Warehouse,
  spec: ReadSpec,
  params: Record<string, number | string | undefined>,
  limit: number | null,
  offset: number,
): Promise<SnapshotPage | undefined> {
  const tests = spec.inMemory;
  if (!tests) return undefined;
  const given = Object.keys(spec.filters).filter((param) => params[param] !== undefined);
  if (given.some((param) => !tests[param])) return undefined;
  if (params.sort !== undefined && params.sort !== spec.params.sort?.default) return undefined;

  const snapshot = await warehouse.perBuild(`view rows ${spec.view}`, async () => {
    const output = await warehouse.query(
      `SELECT * FROM ${WAREHOUSE_CATALOG}.gold.${spec.view}`,
      [],
      { cache: false, maxRows: MAX_SNAPSHOT_ROWS },
    );
    // Frozen: every read shares these rows.
    const rows = output.truncated ? undefined : output.rows.map((row) => Object.freeze(row));
    return { value: rows, build: output.build };
  });
  const all = snapshot.value;
  if (!all) return undefined;
  const matching = given.length
    ? all.filter((row) => given.every((param) => tests[param]!(row, params[param]!)))
    : all;
  const rows = limit === null ? matching : matching.slice(offset, offset + limit);
  return { rows, total: limit === null ? rows.length : matching.length, build: snapshot.build };
}

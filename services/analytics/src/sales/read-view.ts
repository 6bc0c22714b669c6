/**
 * Reads one semantic view with its filters and paging: the one use case behind each REST
 * endpoint and each MCP tool. Values go to DuckDB as parameters, never into the SQL text.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { WAREHOUSE_CATALOG } from '../warehouse/paths.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { READS, type ReadName, type ReadSpec } from './catalog.js';

const TOTAL = '__total_rows';

export type ReadParams = Record<string, number | undefined>;

export interface ViewPage {
  data: Record<string, unknown>[];
  meta: {
    view: string;
    count: number;
    total: number;
    limit: number | null;
    offset: number;
    filters: Record<string, number>;
  };
}

export async function readView(
  warehouse: Warehouse,
  name: ReadName,
  params: ReadParams = {},
): Promise<ViewPage> {
  const spec: ReadSpec = READS[name];
  const qualified = `${WAREHOUSE_CATALOG}.gold.${spec.view}`;
  const values: DuckDBValue[] = [];
  const conditions: string[] = [];
  const filters: Record<string, number> = {};
  for (const [param, condition] of Object.entries(spec.filters)) {
    const value = params[param];
    if (value === undefined) continue;
    values.push(value);
    filters[param] = value;
    conditions.push(condition(`$${values.length}`));
  }
  const where = conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
  const limit = spec.paged ? (params.limit ?? spec.params.limit?.default ?? 100) : null;
  const offset = spec.paged ? (params.offset ?? 0) : 0;
  const pageValues = limit === null ? values : [...values, limit, offset];
  const paging =
    limit === null
      ? ''
      : ` LIMIT $${values.length + 1}::BIGINT OFFSET $${values.length + 2}::BIGINT`;
  // One pass: the page and the filtered total together.
  const page = await warehouse.query(
    `SELECT *, count(*) OVER () AS ${TOTAL} FROM ${qualified}${where} ORDER BY ${spec.orderBy}${paging}`,
    pageValues,
  );
  const total =
    page.rows.length > 0
      ? Number(page.rows[0]![TOTAL])
      : Number(
          (await warehouse.query(`SELECT count(*) AS total FROM ${qualified}${where}`, values))
            .rows[0]?.total ?? 0,
        );
  const data = page.rows.map(({ [TOTAL]: _total, ...row }) => row);
  return {
    data,
    meta: { view: qualified, count: data.length, total, limit, offset, filters },
  };
}

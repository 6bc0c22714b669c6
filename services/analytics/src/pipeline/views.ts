/**
 * The five semantic views in `raw_data.gold`, each a plain read of its serving table
 * (`serving.ts` computes the rows by the spec's rules and stores them in the view's
 * order). A select without ORDER BY returns a table's rows in the order they were stored
 * (DuckDB's `preserve_insertion_order`, on by default), so a view needs no sort and a
 * page of it is a range of its table.
 */
import type { DuckDbSession } from '../warehouse/duckdb-session.js';

export const VIEW_NAMES = [
  'vw_executive_kpis',
  'vw_monthly_sales',
  'vw_yoy_growth',
  'vw_customer_ltv_ranking',
  'vw_category_freight_burden',
] as const;

export type ViewName = (typeof VIEW_NAMES)[number];

const VIEW_SQL: Record<ViewName, string> = {
  vw_executive_kpis: 'SELECT * FROM gold.executive_kpis',
  vw_monthly_sales: 'SELECT * FROM gold.monthly_sales',
  vw_yoy_growth: 'SELECT * FROM gold.yoy_growth',
  vw_customer_ltv_ranking:
    'SELECT customer_sk, total_orders, lifetime_value, ltv_decile, ltv_rank FROM gold.customer_ltv_ranking',
  vw_category_freight_burden: 'SELECT * FROM gold.category_freight_burden',
};

export async function createViews(db: DuckDbSession): Promise<void> {
  for (const name of VIEW_NAMES)
    await db.exec(`CREATE OR REPLACE VIEW gold.${name} AS ${VIEW_SQL[name]}`);
}

/**
 * The five semantic views in `raw_data.gold`, exactly by the spec's rules. Amounts are
 * DOUBLE rounded to 2 decimals, counts BIGINT. Ties are broken by the key so the order
 * (and the LTV decile of tied customers) is deterministic.
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

const money = (expression: string) => `CAST(round(${expression}, 2) AS DOUBLE)`;

const VIEW_SQL: Record<ViewName, string> = {
  // One row even when there are no sales: zero counts and revenue, a null average.
  vw_executive_kpis: `
    SELECT count(DISTINCT order_id) AS total_lifetime_orders,
           count(DISTINCT customer_sk) AS total_unique_customers,
           ${money('coalesce(sum(sales_amount), 0)')} AS total_lifetime_revenue,
           ${money('sum(sales_amount) / nullif(count(DISTINCT order_id), 0)')} AS average_order_value
    FROM gold.fact_sales`,
  vw_monthly_sales: `
    SELECT d.calendar_year AS sales_year,
           d.calendar_month AS sales_month,
           count(DISTINCT f.order_id) AS total_orders,
           count(f.order_item_id) AS total_items_sold,
           ${money('sum(f.sales_amount)')} AS total_revenue,
           ${money('sum(f.freight_value)')} AS total_freight_cost
    FROM gold.fact_sales f
    JOIN gold.dim_date d ON f.order_date_sk = d.date_sk
    GROUP BY d.calendar_year, d.calendar_month
    ORDER BY sales_year DESC, sales_month DESC`,
  // "Previous" is the preceding row in year order (lag), even when a year is missing.
  vw_yoy_growth: `
    WITH yearly AS (
      SELECT d.calendar_year, sum(f.sales_amount) AS revenue
      FROM gold.fact_sales f
      JOIN gold.dim_date d ON f.order_date_sk = d.date_sk
      GROUP BY d.calendar_year
    ), lagged AS (
      SELECT calendar_year, revenue, lag(revenue) OVER (ORDER BY calendar_year) AS previous
      FROM yearly
    )
    SELECT calendar_year,
           ${money('revenue')} AS current_revenue,
           ${money('previous')} AS previous_year_revenue,
           CASE WHEN previous IS NULL OR previous = 0 THEN NULL
                ELSE ${money('(revenue - previous) * 100 / previous')} END AS yoy_growth_percentage
    FROM lagged
    ORDER BY calendar_year DESC`,
  vw_customer_ltv_ranking: `
    WITH customers AS (
      SELECT customer_sk, count(DISTINCT order_id) AS total_orders, sum(sales_amount) AS lifetime_value
      FROM gold.fact_sales
      GROUP BY customer_sk
      HAVING sum(sales_amount) > 0
    )
    SELECT customer_sk,
           total_orders,
           ${money('lifetime_value')} AS lifetime_value,
           ntile(10) OVER (ORDER BY lifetime_value DESC, customer_sk) AS ltv_decile,
           dense_rank() OVER (ORDER BY lifetime_value DESC) AS ltv_rank
    FROM customers
    ORDER BY ltv_rank, customer_sk`,
  vw_category_freight_burden: `
    SELECT p.product_category_name,
           count(f.order_item_id) AS items_sold,
           ${money('sum(f.sales_amount)')} AS total_revenue,
           ${money('sum(f.freight_value)')} AS total_freight_cost,
           CASE WHEN sum(f.sales_amount) = 0 THEN NULL
                ELSE ${money('sum(f.freight_value) * 100 / sum(f.sales_amount)')} END AS freight_to_revenue_ratio
    FROM gold.fact_sales f
    JOIN gold.dim_product p ON f.product_sk = p.product_sk
    WHERE p.product_category_name IS DISTINCT FROM 'unknown'
    GROUP BY p.product_category_name
    HAVING sum(f.sales_amount) > 1000
    ORDER BY freight_to_revenue_ratio DESC NULLS LAST, product_category_name`,
};

export async function createViews(db: DuckDbSession): Promise<void> {
  for (const name of VIEW_NAMES)
    await db.exec(`CREATE OR REPLACE VIEW gold.${name} AS ${VIEW_SQL[name]}`);
}

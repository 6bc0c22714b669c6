/**
 * The serving tables: each semantic view's result computed once per build by the spec's
 * rules and stored in the view's order, so a read is a plain scan of a small table and a
 * page is a range of it.
 * - `gold.executive_kpis`, `gold.monthly_sales`, `gold.yoy_growth`,
 *   `gold.category_freight_burden`: the view's rows, in its order;
 * - `gold.customer_ltv_ranking`: the ranking with `ranking_row` (1…n in the view's order,
 *   rank then `customer_sk`), `ltv_decile` and `ltv_rank`;
 * - `gold.customer_ltv_deciles`: per decile (and `NULL` for all customers) how many
 *   customers and the `ranking_row` of the first, the totals of a filtered page;
 * - `gold.monthly_sales_by_status`, `gold.kpi_customer_months`: the monthly and KPI
 *   measures at a finer grain (month × order status, × customer for the KPIs), rolled up
 *   by a read that filters on a month range or order status (`catalog.ts`, `rollup`);
 * - `gold.build_info`: this build's identity (`build_id`, `built_at`), read by the service
 *   for `ETag`, `Last-Modified` and `data_as_of`.
 * Amounts are DOUBLE rounded to 2 decimals, percentages from exact decimal sums; ties are
 * broken by the key so the order (and the decile of tied customers) is deterministic.
 */
import type { DuckDbSession } from '../warehouse/duckdb-session.js';

export const money = (expression: string) => `CAST(round(${expression}, 2) AS DOUBLE)`;

const STATEMENTS = [
  // One row even when there are no sales: zero counts and revenue, a null average.
  `CREATE OR REPLACE TABLE gold.executive_kpis AS
   SELECT count(DISTINCT order_id) AS total_lifetime_orders,
          count(DISTINCT customer_sk) AS total_unique_customers,
          ${money('coalesce(sum(sales_amount), 0)')} AS total_lifetime_revenue,
          ${money('sum(sales_amount) / nullif(count(DISTINCT order_id), 0)')} AS average_order_value
   FROM gold.fact_sales`,
  `CREATE OR REPLACE TABLE gold.monthly_sales AS
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
  `CREATE OR REPLACE TABLE gold.yoy_growth AS
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
  `CREATE OR REPLACE TABLE gold.customer_ltv_ranking AS
   WITH customers AS (
     SELECT customer_sk, count(DISTINCT order_id) AS total_orders, sum(sales_amount) AS lifetime_value
     FROM gold.fact_sales
     GROUP BY customer_sk
     HAVING sum(sales_amount) > 0
   )
   SELECT row_number() OVER ranking AS ranking_row,
          customer_sk,
          total_orders,
          ${money('lifetime_value')} AS lifetime_value,
          CAST(ntile(10) OVER ranking AS INTEGER) AS ltv_decile,
          dense_rank() OVER (ORDER BY lifetime_value DESC) AS ltv_rank
   FROM customers
   WINDOW ranking AS (ORDER BY lifetime_value DESC, customer_sk)
   ORDER BY ranking_row`,
  `CREATE OR REPLACE TABLE gold.customer_ltv_deciles AS
   SELECT ltv_decile, count(*) AS customers, min(ranking_row) AS first_row
   FROM gold.customer_ltv_ranking
   GROUP BY GROUPING SETS ((ltv_decile), ())
   ORDER BY ltv_decile NULLS FIRST`,
  `CREATE OR REPLACE TABLE gold.category_freight_burden AS
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
  // Finer grains for the filtered reads (issue 14 item 5): by month and order status,
  // sums kept exact (rounded when rolled up), so any range and set of statuses adds up.
  // An order has one month, status and customer, so its count is additive over them;
  // distinct customers are not, hence the customer grain for the KPIs.
  `CREATE OR REPLACE TABLE gold.monthly_sales_by_status AS
   SELECT d.calendar_year AS sales_year,
          d.calendar_month AS sales_month,
          f.order_status,
          count(DISTINCT f.order_id) AS total_orders,
          count(f.order_item_id) AS total_items_sold,
          sum(f.sales_amount) AS revenue,
          sum(f.freight_value) AS freight
   FROM gold.fact_sales f
   JOIN gold.dim_date d ON f.order_date_sk = d.date_sk
   GROUP BY ALL
   ORDER BY sales_year DESC, sales_month DESC, order_status`,
  `CREATE OR REPLACE TABLE gold.kpi_customer_months AS
   SELECT d.calendar_year AS sales_year,
          d.calendar_month AS sales_month,
          f.order_status,
          f.customer_sk,
          count(DISTINCT f.order_id) AS orders,
          sum(f.sales_amount) AS revenue
   FROM gold.fact_sales f
   JOIN gold.dim_date d ON f.order_date_sk = d.date_sk
   GROUP BY ALL
   ORDER BY sales_year, sales_month, order_status, customer_sk`,
  `CREATE OR REPLACE TABLE gold.build_info AS
   SELECT $1::VARCHAR AS build_id, $2::TIMESTAMP AS built_at,
          (SELECT max(order_purchase_timestamp) FROM gold.fact_sales) AS latest_sale_at`,
];

export interface BuildIdentity {
  buildId: string;
  /** When the build loaded its batch (UTC, `YYYY-MM-DD HH:MM:SS.sss`). */
  builtAt: string;
}

export async function buildServingTables(
  db: DuckDbSession,
  identity: BuildIdentity,
): Promise<Record<string, number>> {
  for (const statement of STATEMENTS) {
    await db.exec(statement, statement.includes('$1') ? [identity.buildId, identity.builtAt] : []);
  }
  const [row] = await db.all<Record<string, number>>(
    `SELECT (SELECT count(*) FROM gold.monthly_sales) AS months,
            (SELECT count(*) FROM gold.customer_ltv_ranking) AS ranked_customers,
            (SELECT count(*) FROM gold.category_freight_burden) AS categories`,
  );
  return row!;
}

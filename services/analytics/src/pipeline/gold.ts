/**
 * Gold: the star schema.
 * - `dim_customer` (one row per `customer_unique_id`) and `dim_product` (one row per
 *   `product_id`), surrogate keys `sha256(natural key)`, upserted by MERGE;
 * - `fact_sales`, one row per order item, MERGEd on (`order_id`, `order_item_id`): a
 *   re-run or an incremental batch updates rows instead of duplicating them (only rows
 *   whose values changed are rewritten, so `updated_at` marks real changes);
 * - `dim_date`, every day of the calendar years the facts cover, `date_sk` = YYYYMMDD;
 * - then each table is rewritten ordered by the columns queries filter and join on
 *   (facts by date, customer, product; dimensions by key), which compacts it too.
 */
import type { DuckDbSession } from '../warehouse/duckdb-session.js';

const CREATE_TABLES = [
  'CREATE SCHEMA IF NOT EXISTS gold',
  `CREATE TABLE IF NOT EXISTS gold.dim_customer (
     customer_sk VARCHAR NOT NULL, customer_unique_id VARCHAR NOT NULL,
     customer_zip_code_prefix VARCHAR, customer_city VARCHAR, customer_state VARCHAR,
     updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS gold.dim_product (
     product_sk VARCHAR NOT NULL, product_id VARCHAR NOT NULL,
     product_category_name VARCHAR NOT NULL, product_category_name_original VARCHAR,
     product_weight_g INTEGER, product_length_cm INTEGER, product_height_cm INTEGER, product_width_cm INTEGER,
     updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS gold.fact_sales (
     order_id VARCHAR NOT NULL, order_item_id INTEGER NOT NULL,
     customer_sk VARCHAR NOT NULL, product_sk VARCHAR NOT NULL, order_date_sk INTEGER NOT NULL,
     seller_id VARCHAR, order_status VARCHAR, order_purchase_timestamp TIMESTAMP,
     sales_amount DECIMAL(18, 2) NOT NULL, freight_value DECIMAL(18, 2) NOT NULL,
     loaded_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL)`,
];

const MERGE_CUSTOMERS = `
  MERGE INTO gold.dim_customer AS t
  USING (
    SELECT sha256(customer_unique_id) AS customer_sk, customer_unique_id,
           customer_zip_code_prefix, customer_city, customer_state
    FROM (
      SELECT customer_unique_id,
             arg_max(customer_zip_code_prefix, customer_id) AS customer_zip_code_prefix,
             arg_max(customer_city, customer_id) AS customer_city,
             arg_max(customer_state, customer_id) AS customer_state
      FROM silver.customers GROUP BY customer_unique_id
      UNION ALL
      SELECT DISTINCT s.customer_unique_id, NULL, NULL, NULL
      FROM silver.sales s
      WHERE NOT EXISTS (SELECT 1 FROM silver.customers c WHERE c.customer_unique_id = s.customer_unique_id)
    )
  ) AS s
  ON t.customer_sk = s.customer_sk
  WHEN MATCHED AND (
    coalesce(s.customer_zip_code_prefix, t.customer_zip_code_prefix) IS DISTINCT FROM t.customer_zip_code_prefix
    OR coalesce(s.customer_city, t.customer_city) IS DISTINCT FROM t.customer_city
    OR coalesce(s.customer_state, t.customer_state) IS DISTINCT FROM t.customer_state) THEN UPDATE SET
    customer_zip_code_prefix = coalesce(s.customer_zip_code_prefix, t.customer_zip_code_prefix),
    customer_city = coalesce(s.customer_city, t.customer_city),
    customer_state = coalesce(s.customer_state, t.customer_state),
    updated_at = $1::TIMESTAMP
  WHEN NOT MATCHED THEN INSERT
    (customer_sk, customer_unique_id, customer_zip_code_prefix, customer_city, customer_state, updated_at)
    VALUES (s.customer_sk, s.customer_unique_id, s.customer_zip_code_prefix, s.customer_city, s.customer_state, $1::TIMESTAMP)`;

const MERGE_PRODUCTS = `
  MERGE INTO gold.dim_product AS t
  USING (
    SELECT sha256(product_id) AS product_sk, product_id, product_category_name, product_category_name_original,
           product_weight_g, product_length_cm, product_height_cm, product_width_cm
    FROM silver.products
    UNION ALL
    SELECT DISTINCT sha256(s.product_id), s.product_id, 'unknown', NULL, NULL, NULL, NULL, NULL
    FROM silver.sales s
    WHERE NOT EXISTS (SELECT 1 FROM silver.products p WHERE p.product_id = s.product_id)
      AND NOT EXISTS (SELECT 1 FROM gold.dim_product d WHERE d.product_id = s.product_id)
  ) AS s
  ON t.product_sk = s.product_sk
  WHEN MATCHED AND (
    (s.product_category_name, s.product_category_name_original, s.product_weight_g, s.product_length_cm, s.product_height_cm, s.product_width_cm)
    IS DISTINCT FROM
    (t.product_category_name, t.product_category_name_original, t.product_weight_g, t.product_length_cm, t.product_height_cm, t.product_width_cm)) THEN UPDATE SET
    product_category_name = s.product_category_name,
    product_category_name_original = s.product_category_name_original,
    product_weight_g = s.product_weight_g, product_length_cm = s.product_length_cm,
    product_height_cm = s.product_height_cm, product_width_cm = s.product_width_cm,
    updated_at = $1::TIMESTAMP
  WHEN NOT MATCHED THEN INSERT
    (product_sk, product_id, product_category_name, product_category_name_original,
     product_weight_g, product_length_cm, product_height_cm, product_width_cm, updated_at)
    VALUES (s.product_sk, s.product_id, s.product_category_name, s.product_category_name_original,
     s.product_weight_g, s.product_length_cm, s.product_height_cm, s.product_width_cm, $1::TIMESTAMP)`;

const MERGE_FACTS = `
  MERGE INTO gold.fact_sales AS t
  USING (
    SELECT order_id, order_item_id,
           sha256(customer_unique_id) AS customer_sk, sha256(product_id) AS product_sk,
           CAST(strftime(order_date, '%Y%m%d') AS INTEGER) AS order_date_sk,
           seller_id, order_status, order_purchase_timestamp,
           price AS sales_amount, freight_value
    FROM silver.sales
  ) AS s
  ON t.order_id = s.order_id AND t.order_item_id = s.order_item_id
  WHEN MATCHED AND (
    (s.customer_sk, s.product_sk, s.order_date_sk, s.seller_id, s.order_status, s.order_purchase_timestamp, s.sales_amount, s.freight_value)
    IS DISTINCT FROM
    (t.customer_sk, t.product_sk, t.order_date_sk, t.seller_id, t.order_status, t.order_purchase_timestamp, t.sales_amount, t.freight_value)) THEN UPDATE SET
    customer_sk = s.customer_sk, product_sk = s.product_sk, order_date_sk = s.order_date_sk,
    seller_id = s.seller_id, order_status = s.order_status, order_purchase_timestamp = s.order_purchase_timestamp,
    sales_amount = s.sales_amount, freight_value = s.freight_value, updated_at = $1::TIMESTAMP
  WHEN NOT MATCHED THEN INSERT
    (order_id, order_item_id, customer_sk, product_sk, order_date_sk, seller_id, order_status,
     order_purchase_timestamp, sales_amount, freight_value, loaded_at, updated_at)
    VALUES (s.order_id, s.order_item_id, s.customer_sk, s.product_sk, s.order_date_sk, s.seller_id, s.order_status,
     s.order_purchase_timestamp, s.sales_amount, s.freight_value, $1::TIMESTAMP, $1::TIMESTAMP)`;

const BUILD_DIM_DATE = `
  CREATE OR REPLACE TABLE gold.dim_date AS
  WITH bounds AS (
    SELECT coalesce(min(strptime(CAST(order_date_sk AS VARCHAR), '%Y%m%d')), current_date) AS first_day,
           coalesce(max(strptime(CAST(order_date_sk AS VARCHAR), '%Y%m%d')), current_date) AS last_day
    FROM gold.fact_sales
  )
  SELECT CAST(strftime(day, '%Y%m%d') AS INTEGER) AS date_sk,
         CAST(day AS DATE) AS full_date,
         year(day) AS calendar_year,
         quarter(day) AS calendar_quarter,
         month(day) AS calendar_month,
         monthname(day) AS month_name,
         day(day) AS day_of_month,
         isodow(day) AS day_of_week,
         dayname(day) AS day_name,
         isodow(day) >= 6 AS is_weekend
  FROM bounds,
       range(date_trunc('year', first_day), date_trunc('year', last_day) + INTERVAL 1 YEAR, INTERVAL 1 DAY) AS r(day)
  ORDER BY date_sk`;

const CLUSTER = [
  'CREATE OR REPLACE TABLE gold.fact_sales AS SELECT * FROM gold.fact_sales ORDER BY order_date_sk, customer_sk, product_sk, order_id, order_item_id',
  'CREATE OR REPLACE TABLE gold.dim_customer AS SELECT * FROM gold.dim_customer ORDER BY customer_sk',
  'CREATE OR REPLACE TABLE gold.dim_product AS SELECT * FROM gold.dim_product ORDER BY product_sk',
];

export interface GoldCounts {
  counts: Record<string, number>;
  facts: { inserted: number; updated: number; unchanged: number };
}

export async function buildGold(db: DuckDbSession, loadedAt: string): Promise<GoldCounts> {
  for (const statement of CREATE_TABLES) await db.exec(statement);
  const before = await count(db, 'gold.fact_sales');
  await db.exec(MERGE_CUSTOMERS, [loadedAt]);
  await db.exec(MERGE_PRODUCTS, [loadedAt]);
  const merged = await db.exec(MERGE_FACTS, [loadedAt]);
  await db.exec(BUILD_DIM_DATE);
  for (const statement of CLUSTER) await db.exec(statement);
  const counts: Record<string, number> = {};
  for (const table of ['dim_customer', 'dim_product', 'dim_date', 'fact_sales']) {
    counts[`gold.${table}`] = await count(db, `gold.${table}`);
  }
  const inserted = counts['gold.fact_sales']! - before;
  const [batch] = await db.all<{ n: number }>('SELECT count(*) AS n FROM silver.sales');
  const updated = merged - inserted;
  return { counts, facts: { inserted, updated, unchanged: batch!.n - inserted - updated } };
}

async function count(db: DuckDbSession, table: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
  return row!.n;
}

/**
 * Gold: the star schema, the only layer besides the serving tables that is persisted.
 * - `dim_customer` (one row per `customer_unique_id`) and `dim_product` (one row per
 *   `product_id`), surrogate keys `sha256(natural key)`;
 * - `fact_sales`, one row per order item, keyed by (`order_id`, `order_item_id`);
 * - `dim_date`, every day of the calendar years the facts cover, `date_sk` = YYYYMMDD.
 * A first build creates each table straight from silver, sorted by what queries filter
 * and join on (facts by date, dimensions by key). A later build (an incremental batch,
 * or the same files again) MERGEs: a key that exists is updated only when its values
 * changed (`updated_at` marks real changes), a new key is inserted; the tables are then
 * rewritten in that order, which also compacts them.
 * An order in a later batch may come without some (or all) of its items: its status,
 * purchase date or customer changed, its items did not. The order's items already in
 * `fact_sales` then join the batch (`KEPT_ITEMS`) with the order's attributes as silver
 * states them now, so every item of an order has the same status, month and customer:
 * the filtered reads add order counts up over those (`serving.ts`), and an order split
 * over two statuses or months would count twice there and once in the KPIs.
 */
import type { DuckDbSession } from '../warehouse/duckdb-session.js';
import { ORDER_OF_SALE } from './silver.js';

/**
 * The items already loaded that the batch leaves out of an order it changes (status,
 * purchase time or customer), as rows of `silver_sales`: their own values from the facts,
 * the order's from silver. Only the changed ones, so a batch whose orders file holds
 * every order merges no more rows than its items. Only on a later build, before the MERGE.
 */
const KEPT_ITEMS = `
  CREATE OR REPLACE TEMP TABLE kept_items AS
  SELECT k.* EXCLUDE (product_sk, loaded_status, loaded_purchase_timestamp, loaded_customer_sk),
         p.product_id
  FROM (
    SELECT f.order_id, f.order_item_id, f.product_sk, f.seller_id,
           f.sales_amount AS price, f.freight_value, ${ORDER_OF_SALE},
           f.order_status AS loaded_status, f.order_purchase_timestamp AS loaded_purchase_timestamp,
           f.customer_sk AS loaded_customer_sk
    FROM gold.fact_sales f
    JOIN silver_orders o ON o.order_id = f.order_id
    LEFT JOIN silver_customers c ON c.customer_id = o.customer_id
    ANTI JOIN silver_sales s ON s.order_id = f.order_id AND s.order_item_id = f.order_item_id
  ) k
  JOIN gold.dim_product p ON p.product_sk = k.product_sk
  WHERE (k.loaded_status, k.loaded_purchase_timestamp, k.loaded_customer_sk)
    IS DISTINCT FROM (k.order_status, k.order_purchase_timestamp, sha256(k.customer_unique_id))`;

/** The sales a later build merges: the batch's and the kept items of its orders. */
const BATCH_SALES =
  'CREATE OR REPLACE TEMP VIEW batch_sales AS SELECT * FROM silver_sales UNION ALL BY NAME SELECT * FROM kept_items';

/** `sales`: `silver_sales` on a first build, `batch_sales` on a later one. */
const CUSTOMERS_OF_BATCH = (sales: string) => `
  SELECT sha256(customer_unique_id) AS customer_sk, customer_unique_id,
         customer_zip_code_prefix, customer_city, customer_state
  FROM (
    SELECT customer_unique_id,
           arg_max_null(customer_zip_code_prefix, customer_id) AS customer_zip_code_prefix,
           arg_max_null(customer_city, customer_id) AS customer_city,
           arg_max_null(customer_state, customer_id) AS customer_state
    FROM silver_customers GROUP BY customer_unique_id
    UNION ALL
    SELECT DISTINCT s.customer_unique_id, NULL, NULL, NULL
    FROM ${sales} s ANTI JOIN silver_customers c ON c.customer_unique_id = s.customer_unique_id
  )`;

const PRODUCT_COLUMNS = `product_category_name, product_category_name_original,
  product_weight_g, product_length_cm, product_height_cm, product_width_cm`;

const PRODUCTS_OF_BATCH = (existing: boolean) => `
  SELECT sha256(product_id) AS product_sk, product_id, ${PRODUCT_COLUMNS}
  FROM silver_products
  UNION ALL
  SELECT sha256(product_id), product_id, 'unknown', NULL, NULL, NULL, NULL, NULL
  FROM (SELECT DISTINCT s.product_id FROM silver_sales s
        ANTI JOIN silver_products p ON p.product_id = s.product_id) missing
  ${existing ? 'ANTI JOIN gold.dim_product d ON d.product_id = missing.product_id' : ''}`;

const FACTS_OF_BATCH = (sales: string) => `
  SELECT order_id, order_item_id,
         sha256(customer_unique_id) AS customer_sk, sha256(product_id) AS product_sk,
         CAST(year(order_date) * 10000 + month(order_date) * 100 + day(order_date) AS INTEGER) AS order_date_sk,
         seller_id, order_status, order_purchase_timestamp,
         price AS sales_amount, freight_value
  FROM ${sales}`;

const FACT_ORDER = 'order_date_sk, order_id, order_item_id';

const CREATE_TABLES = [
  'CREATE SCHEMA IF NOT EXISTS gold',
  `CREATE TABLE gold.dim_customer (
     customer_sk VARCHAR NOT NULL, customer_unique_id VARCHAR NOT NULL,
     customer_zip_code_prefix VARCHAR, customer_city VARCHAR, customer_state VARCHAR,
     updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE gold.dim_product (
     product_sk VARCHAR NOT NULL, product_id VARCHAR NOT NULL,
     product_category_name VARCHAR NOT NULL, product_category_name_original VARCHAR,
     product_weight_g INTEGER, product_length_cm INTEGER, product_height_cm INTEGER, product_width_cm INTEGER,
     updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE gold.fact_sales (
     order_id VARCHAR NOT NULL, order_item_id INTEGER NOT NULL,
     customer_sk VARCHAR NOT NULL, product_sk VARCHAR NOT NULL, order_date_sk INTEGER NOT NULL,
     seller_id VARCHAR, order_status VARCHAR, order_purchase_timestamp TIMESTAMP,
     sales_amount DECIMAL(18, 2) NOT NULL, freight_value DECIMAL(18, 2) NOT NULL,
     loaded_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL)`,
];

/** A first build: each table filled straight from silver, in its clustering order. */
const LOAD_FIRST = [
  `INSERT INTO gold.dim_customer
   SELECT *, $1::TIMESTAMP FROM (${CUSTOMERS_OF_BATCH('silver_sales')}) ORDER BY customer_sk`,
  `INSERT INTO gold.dim_product
   SELECT *, $1::TIMESTAMP FROM (${PRODUCTS_OF_BATCH(false)}) ORDER BY product_sk`,
  `INSERT INTO gold.fact_sales
   SELECT *, $1::TIMESTAMP, $1::TIMESTAMP FROM (${FACTS_OF_BATCH('silver_sales')}) ORDER BY ${FACT_ORDER}`,
];

const MERGE_CUSTOMERS = `
  MERGE INTO gold.dim_customer AS t
  USING (${CUSTOMERS_OF_BATCH('batch_sales')}) AS s
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
  USING (${PRODUCTS_OF_BATCH(true)}) AS s
  ON t.product_sk = s.product_sk
  WHEN MATCHED AND ((${PRODUCT_COLUMNS.replace(/(\w+)/g, 's.$1')}) IS DISTINCT FROM (${PRODUCT_COLUMNS.replace(/(\w+)/g, 't.$1')})) THEN UPDATE SET
    product_category_name = s.product_category_name,
    product_category_name_original = s.product_category_name_original,
    product_weight_g = s.product_weight_g, product_length_cm = s.product_length_cm,
    product_height_cm = s.product_height_cm, product_width_cm = s.product_width_cm,
    updated_at = $1::TIMESTAMP
  WHEN NOT MATCHED THEN INSERT
    (product_sk, product_id, ${PRODUCT_COLUMNS}, updated_at)
    VALUES (s.product_sk, s.product_id, s.product_category_name, s.product_category_name_original,
     s.product_weight_g, s.product_length_cm, s.product_height_cm, s.product_width_cm, $1::TIMESTAMP)`;

const FACT_VALUES =
  'customer_sk, product_sk, order_date_sk, seller_id, order_status, order_purchase_timestamp, sales_amount, freight_value';

const MERGE_FACTS = `
  MERGE INTO gold.fact_sales AS t
  USING (${FACTS_OF_BATCH('batch_sales')}) AS s
  ON t.order_id = s.order_id AND t.order_item_id = s.order_item_id
  WHEN MATCHED AND ((${FACT_VALUES.replace(/(\w+)/g, 's.$1')}) IS DISTINCT FROM (${FACT_VALUES.replace(/(\w+)/g, 't.$1')})) THEN UPDATE SET
    customer_sk = s.customer_sk, product_sk = s.product_sk, order_date_sk = s.order_date_sk,
    seller_id = s.seller_id, order_status = s.order_status, order_purchase_timestamp = s.order_purchase_timestamp,
    sales_amount = s.sales_amount, freight_value = s.freight_value, updated_at = $1::TIMESTAMP
  WHEN NOT MATCHED THEN INSERT
    (order_id, order_item_id, ${FACT_VALUES}, loaded_at, updated_at)
    VALUES (s.order_id, s.order_item_id, s.customer_sk, s.product_sk, s.order_date_sk, s.seller_id, s.order_status,
     s.order_purchase_timestamp, s.sales_amount, s.freight_value, $1::TIMESTAMP, $1::TIMESTAMP)`;

const CLUSTER = [
  `CREATE OR REPLACE TABLE gold.fact_sales AS SELECT * FROM gold.fact_sales ORDER BY ${FACT_ORDER}`,
  'CREATE OR REPLACE TABLE gold.dim_customer AS SELECT * FROM gold.dim_customer ORDER BY customer_sk',
  'CREATE OR REPLACE TABLE gold.dim_product AS SELECT * FROM gold.dim_product ORDER BY product_sk',
];

const BUILD_DIM_DATE = `
  CREATE OR REPLACE TABLE gold.dim_date AS
  WITH bounds AS (
    SELECT coalesce(make_date(min(order_date_sk) // 10000, 1, 1), date_trunc('year', current_date)) AS first_day,
           coalesce(make_date(max(order_date_sk) // 10000, 12, 31), current_date) AS last_day
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
       range(CAST(date_trunc('year', first_day) AS TIMESTAMP),
             CAST(date_trunc('year', last_day) AS TIMESTAMP) + INTERVAL 1 YEAR, INTERVAL 1 DAY) AS r(day)
  ORDER BY date_sk`;

export interface GoldCounts {
  counts: Record<string, number>;
  facts: { inserted: number; updated: number; unchanged: number };
}

export async function buildGold(db: DuckDbSession, loadedAt: string): Promise<GoldCounts> {
  const [{ existing }] = (await db.all<{ existing: number }>(
    "SELECT count(*) AS existing FROM duckdb_tables() WHERE schema_name = 'gold' AND table_name = 'fact_sales' AND NOT temporary",
  )) as [{ existing: number }];
  let facts: GoldCounts['facts'];
  if (existing === 0) {
    for (const statement of CREATE_TABLES) await db.exec(statement);
    for (const statement of LOAD_FIRST) await db.exec(statement, [loadedAt]);
    facts = { inserted: await count(db, 'silver_sales'), updated: 0, unchanged: 0 };
  } else {
    await db.exec(KEPT_ITEMS);
    await db.exec(BATCH_SALES);
    // The kept items count too (as updated: their order changed).
    const batch = await count(db, 'batch_sales');
    const before = await count(db, 'gold.fact_sales');
    await db.exec(MERGE_CUSTOMERS, [loadedAt]);
    await db.exec(MERGE_PRODUCTS, [loadedAt]);
    const merged = await db.exec(MERGE_FACTS, [loadedAt]);
    for (const statement of CLUSTER) await db.exec(statement);
    const inserted = (await count(db, 'gold.fact_sales')) - before;
    const updated = merged - inserted;
    facts = { inserted, updated, unchanged: batch - inserted - updated };
  }
  await db.exec(BUILD_DIM_DATE);
  const [counts] = await db.all<Record<string, number>>(
    `SELECT ${['dim_customer', 'dim_product', 'dim_date', 'fact_sales']
      .map((t) => `(SELECT count(*) FROM gold.${t}) AS "gold.${t}"`)
      .join(', ')}`,
  );
  return { counts: counts!, facts };
}

async function count(db: DuckDbSession, table: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
  return row!.n;
}

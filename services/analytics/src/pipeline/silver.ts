/**
 * Silver: typed and cleaned copies of bronze, and `silver.sales`, the conformed batch gold
 * is loaded from.
 * - text trimmed; empty strings are null; ids kept as text, amounts DECIMAL(18,2),
 *   timestamps TIMESTAMP;
 * - rows with a null key (or an unreadable purchase time, price or freight) dropped; a
 *   duplicated key keeps its last row in the file;
 * - each order's customer resolved to `customer_unique_id`; an order whose customer row
 *   is absent keeps its `customer_id` as the unique id, so no order is lost;
 * - categories translated to English; a product without a category, without a
 *   translation, or absent from the products file is labelled `unknown`;
 * - order items whose order is not in the orders file are dropped (they have no date).
 */
import type { DuckDbSession } from '../warehouse/duckdb-session.js';

/** NULL for empty or blank text. */
const txt = (column: string) => `nullif(trim(${column}), '')`;

const STATEMENTS = [
  'CREATE SCHEMA IF NOT EXISTS silver',
  `CREATE OR REPLACE TABLE silver.customers AS
   SELECT ${txt('customer_id')} AS customer_id,
          ${txt('customer_unique_id')} AS customer_unique_id,
          ${txt('customer_zip_code_prefix')} AS customer_zip_code_prefix,
          lower(${txt('customer_city')}) AS customer_city,
          upper(${txt('customer_state')}) AS customer_state
   FROM bronze.customers
   WHERE ${txt('customer_id')} IS NOT NULL AND ${txt('customer_unique_id')} IS NOT NULL
   QUALIFY row_number() OVER (PARTITION BY ${txt('customer_id')} ORDER BY _row_number DESC) = 1`,
  `CREATE OR REPLACE TABLE silver.orders AS
   SELECT ${txt('order_id')} AS order_id,
          ${txt('customer_id')} AS customer_id,
          lower(${txt('order_status')}) AS order_status,
          try_cast(${txt('order_purchase_timestamp')} AS TIMESTAMP) AS order_purchase_timestamp,
          try_cast(${txt('order_approved_at')} AS TIMESTAMP) AS order_approved_at,
          try_cast(${txt('order_delivered_carrier_date')} AS TIMESTAMP) AS order_delivered_carrier_date,
          try_cast(${txt('order_delivered_customer_date')} AS TIMESTAMP) AS order_delivered_customer_date,
          try_cast(${txt('order_estimated_delivery_date')} AS TIMESTAMP) AS order_estimated_delivery_date
   FROM bronze.orders
   WHERE ${txt('order_id')} IS NOT NULL AND ${txt('customer_id')} IS NOT NULL
     AND try_cast(${txt('order_purchase_timestamp')} AS TIMESTAMP) IS NOT NULL
   QUALIFY row_number() OVER (PARTITION BY ${txt('order_id')} ORDER BY _row_number DESC) = 1`,
  `CREATE OR REPLACE TABLE silver.order_items AS
   SELECT ${txt('order_id')} AS order_id,
          try_cast(${txt('order_item_id')} AS INTEGER) AS order_item_id,
          ${txt('product_id')} AS product_id,
          ${txt('seller_id')} AS seller_id,
          try_cast(${txt('shipping_limit_date')} AS TIMESTAMP) AS shipping_limit_date,
          try_cast(${txt('price')} AS DECIMAL(18, 2)) AS price,
          try_cast(${txt('freight_value')} AS DECIMAL(18, 2)) AS freight_value
   FROM bronze.order_items
   WHERE ${txt('order_id')} IS NOT NULL AND try_cast(${txt('order_item_id')} AS INTEGER) IS NOT NULL
     AND ${txt('product_id')} IS NOT NULL
     AND try_cast(${txt('price')} AS DECIMAL(18, 2)) IS NOT NULL
     AND try_cast(${txt('freight_value')} AS DECIMAL(18, 2)) IS NOT NULL
   QUALIFY row_number() OVER (
     PARTITION BY ${txt('order_id')}, try_cast(${txt('order_item_id')} AS INTEGER) ORDER BY _row_number DESC) = 1`,
  `CREATE OR REPLACE TABLE silver.category_translation AS
   SELECT lower(${txt('product_category_name')}) AS product_category_name,
          lower(${txt('product_category_name_english')}) AS product_category_name_english
   FROM bronze.category_translation
   WHERE ${txt('product_category_name')} IS NOT NULL AND ${txt('product_category_name_english')} IS NOT NULL
   QUALIFY row_number() OVER (PARTITION BY lower(${txt('product_category_name')}) ORDER BY _row_number DESC) = 1`,
  `CREATE OR REPLACE TABLE silver.products AS
   SELECT p.product_id, p.product_category_name_original,
          coalesce(t.product_category_name_english, 'unknown') AS product_category_name,
          p.product_weight_g, p.product_length_cm, p.product_height_cm, p.product_width_cm
   FROM (
     SELECT ${txt('product_id')} AS product_id,
            lower(${txt('product_category_name')}) AS product_category_name_original,
            try_cast(${txt('product_weight_g')} AS INTEGER) AS product_weight_g,
            try_cast(${txt('product_length_cm')} AS INTEGER) AS product_length_cm,
            try_cast(${txt('product_height_cm')} AS INTEGER) AS product_height_cm,
            try_cast(${txt('product_width_cm')} AS INTEGER) AS product_width_cm
     FROM bronze.products
     WHERE ${txt('product_id')} IS NOT NULL
     QUALIFY row_number() OVER (PARTITION BY ${txt('product_id')} ORDER BY _row_number DESC) = 1
   ) p
   LEFT JOIN silver.category_translation t ON t.product_category_name = p.product_category_name_original`,
  `CREATE OR REPLACE TABLE silver.sales AS
   SELECT i.order_id, i.order_item_id, i.product_id, i.seller_id,
          i.price, i.freight_value,
          o.order_status, o.order_purchase_timestamp,
          CAST(o.order_purchase_timestamp AS DATE) AS order_date,
          o.customer_id,
          coalesce(c.customer_unique_id, o.customer_id) AS customer_unique_id
   FROM silver.order_items i
   JOIN silver.orders o ON o.order_id = i.order_id
   LEFT JOIN silver.customers c ON c.customer_id = o.customer_id`,
];

export async function buildSilver(db: DuckDbSession): Promise<Record<string, number>> {
  for (const statement of STATEMENTS) await db.exec(statement);
  const counts: Record<string, number> = {};
  for (const table of [
    'customers',
    'orders',
    'order_items',
    'products',
    'category_translation',
    'sales',
  ]) {
    const [row] = await db.all<{ n: number }>(`SELECT count(*) AS n FROM silver.${table}`);
    counts[`silver.${table}`] = row!.n;
  }
  return counts;
}

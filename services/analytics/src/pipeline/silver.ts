/**
 * Silver: typed and cleaned copies of bronze in temporary tables (`silver_<table>`), and
 * `silver_sales`, the conformed batch gold is loaded from. Not persisted.
 * - text as bronze cleaned it (trimmed, blank → null); ids kept as text, amounts DECIMAL(18,2),
 *   timestamps TIMESTAMP;
 * - rows with a null key (or an unreadable purchase time, price or freight) dropped; a
 *   duplicated key keeps its last line in the file: one GROUP BY per table with
 *   `arg_max_null(column, line)` (no window sort);
 * - each order's customer resolved to `customer_unique_id`; an order whose customer row
 *   is absent keeps its `customer_id` as the unique id, so no order is lost;
 * - categories translated to English; a category without a translation keeps its
 *   Portuguese name; a product without a category, or absent from the products file, is
 *   labelled `unknown`;
 * - order items whose order is not in the orders file are dropped (they have no date).
 */
import { OLIST_FILES } from '../olist-format.js';
import type { DuckDbSession } from '../warehouse/duckdb-session.js';

/**
 * The last line of each key: `typed` is a SELECT of typed columns plus `_line` (the
 * bronze rowid), already filtered to valid rows.
 */
function lastLinePerKey(keys: string[], columns: string[], typed: string): string {
  const picked = columns.map((c) => `arg_max_null(${c}, _line) AS ${c}`);
  return `SELECT ${[...keys, ...picked].join(', ')} FROM (${typed}) GROUP BY ${keys.join(', ')}`;
}

/** The conditions a bronze order item must meet to be loaded (shared with the quality checks). */
export const VALID_ITEM = `order_id IS NOT NULL AND try_cast(order_item_id AS INTEGER) IS NOT NULL
  AND product_id IS NOT NULL AND try_cast(price AS DECIMAL(18, 2)) IS NOT NULL
  AND try_cast(freight_value AS DECIMAL(18, 2)) IS NOT NULL`;

/**
 * What a sale takes from its order, as silver states the order now: the columns of
 * `silver_sales` after the item's own, from `silver_orders o` LEFT JOIN
 * `silver_customers c` on `customer_id`. Shared with gold, which gives them to the items
 * already loaded of an order a later batch changes (`gold.ts`, `KEPT_ITEMS`).
 */
export const ORDER_OF_SALE = `o.order_status, o.order_purchase_timestamp,
  CAST(o.order_purchase_timestamp AS DATE) AS order_date,
  o.customer_id,
  coalesce(c.customer_unique_id, o.customer_id) AS customer_unique_id`;

const STATEMENTS = [
  `CREATE OR REPLACE TEMP TABLE silver_customers AS ${lastLinePerKey(
    ['customer_id'],
    ['customer_unique_id', 'customer_zip_code_prefix', 'customer_city', 'customer_state'],
    `SELECT rowid AS _line, customer_id,
            customer_unique_id,
            customer_zip_code_prefix,
            lower(customer_city) AS customer_city,
            upper(customer_state) AS customer_state
     FROM bronze_customers
     WHERE customer_id IS NOT NULL AND customer_unique_id IS NOT NULL`,
  )}`,
  `CREATE OR REPLACE TEMP TABLE silver_orders AS ${lastLinePerKey(
    ['order_id'],
    OLIST_FILES.orders.columns.filter((column) => column !== 'order_id'),
    `SELECT rowid AS _line, order_id,
            customer_id,
            lower(order_status) AS order_status,
            try_cast(order_purchase_timestamp AS TIMESTAMP) AS order_purchase_timestamp,
            try_cast(order_approved_at AS TIMESTAMP) AS order_approved_at,
            try_cast(order_delivered_carrier_date AS TIMESTAMP) AS order_delivered_carrier_date,
            try_cast(order_delivered_customer_date AS TIMESTAMP) AS order_delivered_customer_date,
            try_cast(order_estimated_delivery_date AS TIMESTAMP) AS order_estimated_delivery_date
     FROM bronze_orders
     WHERE order_id IS NOT NULL AND customer_id IS NOT NULL
       AND try_cast(order_purchase_timestamp AS TIMESTAMP) IS NOT NULL`,
  )}`,
  `CREATE OR REPLACE TEMP TABLE silver_order_items AS ${lastLinePerKey(
    ['order_id', 'order_item_id'],
    ['product_id', 'seller_id', 'shipping_limit_date', 'price', 'freight_value'],
    `SELECT rowid AS _line, order_id,
            try_cast(order_item_id AS INTEGER) AS order_item_id,
            product_id,
            seller_id,
            try_cast(shipping_limit_date AS TIMESTAMP) AS shipping_limit_date,
            try_cast(price AS DECIMAL(18, 2)) AS price,
            try_cast(freight_value AS DECIMAL(18, 2)) AS freight_value
     FROM bronze_order_items
     WHERE ${VALID_ITEM}`,
  )}`,
  `CREATE OR REPLACE TEMP TABLE silver_category_translation AS ${lastLinePerKey(
    ['product_category_name'],
    ['product_category_name_english'],
    `SELECT rowid AS _line, lower(product_category_name) AS product_category_name,
            lower(product_category_name_english) AS product_category_name_english
     FROM bronze_category_translation
     WHERE product_category_name IS NOT NULL AND product_category_name_english IS NOT NULL`,
  )}`,
  `CREATE OR REPLACE TEMP TABLE silver_products AS
   SELECT p.product_id, p.product_category_name_original,
          coalesce(t.product_category_name_english, p.product_category_name_original, 'unknown') AS product_category_name,
          p.product_weight_g, p.product_length_cm, p.product_height_cm, p.product_width_cm
   FROM (${lastLinePerKey(
     ['product_id'],
     [
       'product_category_name_original',
       'product_weight_g',
       'product_length_cm',
       'product_height_cm',
       'product_width_cm',
     ],
     `SELECT rowid AS _line, product_id,
             lower(product_category_name) AS product_category_name_original,
             try_cast(product_weight_g AS INTEGER) AS product_weight_g,
             try_cast(product_length_cm AS INTEGER) AS product_length_cm,
             try_cast(product_height_cm AS INTEGER) AS product_height_cm,
             try_cast(product_width_cm AS INTEGER) AS product_width_cm
      FROM bronze_products
      WHERE product_id IS NOT NULL`,
   )}) p
   LEFT JOIN silver_category_translation t ON t.product_category_name = p.product_category_name_original`,
  `CREATE OR REPLACE TEMP TABLE silver_sales AS
   SELECT i.order_id, i.order_item_id, i.product_id, i.seller_id,
          i.price, i.freight_value, ${ORDER_OF_SALE}
   FROM silver_order_items i
   JOIN silver_orders o ON o.order_id = i.order_id
   LEFT JOIN silver_customers c ON c.customer_id = o.customer_id`,
];

export const SILVER_TABLES = [
  'customers',
  'orders',
  'order_items',
  'products',
  'category_translation',
  'sales',
] as const;

export async function buildSilver(db: DuckDbSession): Promise<Record<string, number>> {
  for (const statement of STATEMENTS) await db.exec(statement);
  const [row] = await db.all<Record<string, number>>(
    `SELECT ${SILVER_TABLES.map((t) => `(SELECT count(*) FROM silver_${t}) AS "silver.${t}"`).join(', ')}`,
  );
  return row!;
}

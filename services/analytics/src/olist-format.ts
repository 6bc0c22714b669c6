/**
 * The Olist e-commerce CSV files as published: file names and the columns, in order,
 * that the generator writes and the pipeline requires. (`lenght` is Olist's spelling.)
 */
export const OLIST_FILES = {
  orders: {
    file: 'olist_orders_dataset.csv',
    columns: [
      'order_id',
      'customer_id',
      'order_status',
      'order_purchase_timestamp',
      'order_approved_at',
      'order_delivered_carrier_date',
      'order_delivered_customer_date',
      'order_estimated_delivery_date',
    ],
  },
  orderItems: {
    file: 'olist_order_items_dataset.csv',
    columns: [
      'order_id',
      'order_item_id',
      'product_id',
      'seller_id',
      'shipping_limit_date',
      'price',
      'freight_value',
    ],
  },
  customers: {
    file: 'olist_customers_dataset.csv',
    columns: [
      'customer_id',
      'customer_unique_id',
      'customer_zip_code_prefix',
      'customer_city',
      'customer_state',
    ],
  },
  products: {
    file: 'olist_products_dataset.csv',
    columns: [
      'product_id',
      'product_category_name',
      'product_name_lenght',
      'product_description_lenght',
      'product_photos_qty',
      'product_weight_g',
      'product_length_cm',
      'product_height_cm',
      'product_width_cm',
    ],
  },
  categoryTranslation: {
    file: 'product_category_name_translation.csv',
    columns: ['product_category_name', 'product_category_name_english'],
  },
} as const;

export type OlistTable = keyof typeof OLIST_FILES;

export const OLIST_TABLES = Object.keys(OLIST_FILES) as OlistTable[];

/** Bronze table name of each source file. */
export const BRONZE_TABLES: Record<OlistTable, string> = {
  orders: 'orders',
  orderItems: 'order_items',
  customers: 'customers',
  products: 'products',
  categoryTranslation: 'category_translation',
};

/** Olist's order statuses, lower case (as silver stores them), most frequent first. */
export const ORDER_STATUSES = [
  'delivered',
  'shipped',
  'canceled',
  'unavailable',
  'invoiced',
  'processing',
  'created',
  'approved',
] as const;

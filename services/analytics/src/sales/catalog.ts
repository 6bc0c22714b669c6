/**
 * The five reads of the spec's section 4, declared once: the view each reads, its REST
 * path, its MCP tool name and description, its typed and bounded parameters, and the
 * shape of its rows. REST routes and MCP tools are both generated from this table.
 */
import { ORDER_STATUSES } from '../olist-format.js';
import { money } from '../pipeline/serving.js';
import type { ViewName } from '../pipeline/views.js';
import { WAREHOUSE_CATALOG } from '../warehouse/paths.js';

export interface NumberParamSpec {
  type: 'integer' | 'number';
  minimum: number;
  maximum: number;
  default?: number;
  description: string;
}

/** A text parameter: a month (`pattern`) or one of a few words (`enum`). */
export interface StringParamSpec {
  type: 'string';
  pattern?: string;
  enum?: string[];
  default?: string;
  description: string;
}

export type ParamSpec = NumberParamSpec | StringParamSpec;

export type ColumnType = 'integer' | 'number' | 'string';

export interface ReadSpec {
  view: ViewName;
  path: string;
  tool: string;
  summary: string;
  /** Told to MCP clients and to the LLM: what the tool answers and when to use it. */
  description: string;
  params: Record<string, ParamSpec>;
  /** Filters on view columns: parameter → SQL condition on `$n`. */
  filters: Record<string, (placeholder: string) => string>;
  /** The view's order (its serving table is stored in it). */
  orderBy: string;
  /**
   * Other orders a client may ask for with `sort`: name → ORDER BY clause. Unset or the
   * default keeps the stored order (a range read, no sort).
   */
  sorts?: Record<string, string>;
  /**
   * When one of `when` is given, the read rolls the view's rows up from a finer serving
   * table instead (`from` gets the WHERE clause of every filter, on that table's columns),
   * ordered by `orderBy`; still one relation per read, the filters applied inside it.
   */
  rollup?: { when: string[]; from: (where: string) => string };
  /**
   * The filtered total as the build stored it, given each filter's placeholder; unset:
   * a count of the view.
   */
  total?: (placeholders: Record<string, string>) => string;
  /**
   * Set when the serving table numbers its rows in the view's order and the build stores
   * where each segment (a value of the `segment` filter, or all rows) starts and how many
   * rows it has: a page in the stored order, or in its reverse (`reverseSort`), is then a
   * range of row numbers, read through the table's zone maps (`range-read.ts`).
   */
  ranked?: {
    /** The serving table (gold schema) and its row-number column, 1…n. */
    table: string;
    rowColumn: string;
    /** The one filter that selects a contiguous run of rows. */
    segment: string;
    /** The table of runs: the segment's value (NULL: all rows), its rows, its first row number. */
    segments: { table: string; key: string; count: string; first: string };
    /** The `sort` that reads the rows backwards. */
    reverseSort: string;
  };
  /**
   * Set for a view small enough to hold whole (its rows are a few hundred at most: months,
   * years, categories): its rows are read once per opened build and a read whose filters
   * all have a predicate here is answered from them (`serving-snapshot.ts`). Each
   * predicate is the row test of the SQL condition of the same name in `filters` (a
   * null column fails it, as the SQL comparison does); a filter without one (e.g.
   * `status`, answered by a rollup) sends the read to DuckDB.
   */
  inMemory?: Record<string, (row: Record<string, unknown>, value: number | string) => boolean>;
  /** Columns and types; `nullable` lists those that may be null. */
  columns: Record<string, ColumnType>;
  nullable: string[];
  /** Whether `limit`/`offset` apply. */
  paged: boolean;
}

const MONTH = '^[0-9]{4}-(0[1-9]|1[0-2])$';
const month = (description: string): StringParamSpec => ({
  type: 'string',
  pattern: MONTH,
  description,
});
/** `YYYY-MM` as the integer `YYYYMM`, compared with `year * 100 + month`. */
const monthNumber = (placeholder: string) => `CAST(replace(${placeholder}, '-', '') AS INTEGER)`;

const STATUS_LIST = `(${ORDER_STATUSES.join('|')})`;
const status: StringParamSpec = {
  type: 'string',
  pattern: `^${STATUS_LIST}(,${STATUS_LIST}){0,7}$`,
  description: `Only orders of these statuses, comma-separated (${ORDER_STATUSES.join(', ')}); default every status.`,
};
/** The row's status is one of the comma-separated list in the parameter. */
const statusFilter = (p: string) => `list_contains(string_split(${p}, ','), order_status)`;
const monthFilters = {
  from: (p: string) => `sales_year * 100 + sales_month >= ${monthNumber(p)}`,
  to: (p: string) => `sales_year * 100 + sales_month <= ${monthNumber(p)}`,
};
/** `monthFilters` as row tests (a month's value is `YYYY-MM`, checked by the schema). */
const rowMonth = (row: Record<string, unknown>) =>
  Number(row.sales_year) * 100 + Number(row.sales_month);
const asMonthNumber = (value: number | string) => Number(String(value).replace('-', ''));
const inMemoryMonthFilters = {
  from: (row: Record<string, unknown>, value: number | string) =>
    rowMonth(row) >= asMonthNumber(value),
  to: (row: Record<string, unknown>, value: number | string) =>
    rowMonth(row) <= asMonthNumber(value),
};

const limit = (defaultValue: number, maximum: number): NumberParamSpec => ({
  type: 'integer',
  minimum: 1,
  maximum,
  default: defaultValue,
  description: `Most rows to return (1–${maximum}, default ${defaultValue}).`,
});
const offset: NumberParamSpec = {
  type: 'integer',
  minimum: 0,
  maximum: 1_000_000,
  default: 0,
  description: 'Rows to skip, for paging (default 0).',
};

export const READS = {
  sales_summary: {
    view: 'vw_executive_kpis',
    path: '/api/v1/sales/kpis',
    tool: 'sales_summary',
    summary: 'Executive KPIs, all time or for a month range and order statuses',
    description:
      'Headline numbers: total orders, unique customers, total revenue and average order value (BRL); all time, or only the months from/to (YYYY-MM, inclusive) and orders of the given statuses. Use for overall size or performance questions.',
    params: {
      from: month('Only this month (YYYY-MM) and later.'),
      to: month('Only this month (YYYY-MM) and earlier.'),
      status,
    },
    filters: { ...monthFilters, status: statusFilter },
    rollup: {
      when: ['from', 'to', 'status'],
      from: (where) =>
        `SELECT CAST(coalesce(sum(orders), 0) AS BIGINT) AS total_lifetime_orders,
                count(DISTINCT customer_sk) AS total_unique_customers,
                ${money('coalesce(sum(revenue), 0)')} AS total_lifetime_revenue,
                ${money('sum(revenue) / nullif(sum(orders), 0)')} AS average_order_value
         FROM ${WAREHOUSE_CATALOG}.gold.kpi_customer_months${where}`,
    },
    orderBy: '1',
    inMemory: {},
    columns: {
      total_lifetime_orders: 'integer',
      total_unique_customers: 'integer',
      total_lifetime_revenue: 'number',
      average_order_value: 'number',
    },
    nullable: ['average_order_value'],
    paged: false,
  },
  monthly_trends: {
    view: 'vw_monthly_sales',
    path: '/api/v1/sales/monthly-trend',
    tool: 'monthly_trends',
    summary: 'Sales by calendar month, newest first',
    description:
      'Orders, items sold, revenue and freight cost per calendar month, newest month first. Optionally one year, a month range (from/to) or orders of some statuses only. Use for trends, seasonality and best or worst months.',
    params: {
      year: {
        type: 'integer',
        minimum: 1900,
        maximum: 2100,
        description: 'Only months of this calendar year.',
      },
      from: month('Only this month (YYYY-MM) and later.'),
      to: month('Only this month (YYYY-MM) and earlier.'),
      status,
      limit: limit(120, 1000),
      offset,
    },
    filters: {
      year: (p) => `sales_year = ${p}`,
      ...monthFilters,
      status: statusFilter,
    },
    rollup: {
      when: ['status'],
      from: (where) =>
        `SELECT sales_year, sales_month,
                CAST(sum(total_orders) AS BIGINT) AS total_orders,
                CAST(sum(total_items_sold) AS BIGINT) AS total_items_sold,
                ${money('sum(revenue)')} AS total_revenue,
                ${money('sum(freight)')} AS total_freight_cost
         FROM ${WAREHOUSE_CATALOG}.gold.monthly_sales_by_status${where}
         GROUP BY sales_year, sales_month`,
    },
    orderBy: 'sales_year DESC, sales_month DESC',
    inMemory: {
      year: (row, value) => Number(row.sales_year) === Number(value),
      ...inMemoryMonthFilters,
    },
    columns: {
      sales_year: 'integer',
      sales_month: 'integer',
      total_orders: 'integer',
      total_items_sold: 'integer',
      total_revenue: 'number',
      total_freight_cost: 'number',
    },
    nullable: [],
    paged: true,
  },
  yoy_growth: {
    view: 'vw_yoy_growth',
    path: '/api/v1/sales/yoy',
    tool: 'yoy_growth',
    summary: 'Revenue per year and growth over the previous year',
    description:
      'Revenue per calendar year with the previous year’s revenue and the growth in percent (null for the first year or when the previous revenue is 0), newest year first.',
    params: { limit: limit(50, 100) },
    filters: {},
    orderBy: 'calendar_year DESC',
    inMemory: {},
    columns: {
      calendar_year: 'integer',
      current_revenue: 'number',
      previous_year_revenue: 'number',
      yoy_growth_percentage: 'number',
    },
    nullable: ['previous_year_revenue', 'yoy_growth_percentage'],
    paged: true,
  },
  top_customers: {
    view: 'vw_customer_ltv_ranking',
    path: '/api/v1/analytics/customer-ltv',
    tool: 'top_customers',
    summary: 'Customers ranked by lifetime value',
    description:
      'Customers ranked by lifetime value (total spend, BRL), best first, with order count, LTV decile (1 = top 10% of spenders) and dense rank. Filter by decile to study a segment.',
    params: {
      decile: {
        type: 'integer',
        minimum: 1,
        maximum: 10,
        description: 'Only customers in this LTV decile (1 = top 10%).',
      },
      sort: {
        type: 'string',
        enum: ['ltv_desc', 'ltv_asc', 'orders_desc'],
        default: 'ltv_desc',
        description:
          'Order: ltv_desc (best first, default), ltv_asc (lowest value first) or orders_desc (most orders first, then by value).',
      },
      limit: limit(50, 1000),
      offset,
    },
    filters: { decile: (p) => `ltv_decile = ${p}` },
    orderBy: 'ltv_rank, customer_sk',
    sorts: {
      ltv_asc: 'ltv_rank DESC, customer_sk DESC',
      orders_desc: 'total_orders DESC, ltv_rank, customer_sk',
    },
    ranked: {
      table: 'customer_ltv_ranking',
      rowColumn: 'ranking_row',
      segment: 'decile',
      segments: {
        table: 'customer_ltv_deciles',
        key: 'ltv_decile',
        count: 'customers',
        first: 'first_row',
      },
      reverseSort: 'ltv_asc',
    },
    total: ({ decile }) =>
      `SELECT customers AS total FROM raw_data.gold.customer_ltv_deciles WHERE ltv_decile IS NOT DISTINCT FROM ${decile ?? 'NULL'}::INTEGER`,
    columns: {
      customer_sk: 'string',
      total_orders: 'integer',
      lifetime_value: 'number',
      ltv_decile: 'integer',
      ltv_rank: 'integer',
    },
    nullable: [],
    paged: true,
  },
  category_analysis: {
    view: 'vw_category_freight_burden',
    path: '/api/v1/analytics/categories/freight',
    tool: 'category_analysis',
    summary: 'Freight burden by product category',
    description:
      'Product categories with revenue above 1000 BRL (excluding unknown): items sold, revenue, freight cost and freight as a percent of revenue, highest burden first. Above 20% marks a candidate for a shipping or pricing change.',
    params: {
      min_ratio: {
        type: 'number',
        minimum: 0,
        maximum: 100000,
        description:
          'Only categories whose freight-to-revenue ratio (percent) is at least this, e.g. 20.',
      },
      limit: limit(100, 1000),
      offset,
    },
    filters: { min_ratio: (p) => `freight_to_revenue_ratio >= ${p}` },
    orderBy: 'freight_to_revenue_ratio DESC NULLS LAST, product_category_name',
    inMemory: {
      // NULL >= x is not true in SQL; in JavaScript null >= 0 is.
      min_ratio: (row, value) =>
        typeof row.freight_to_revenue_ratio === 'number' &&
        row.freight_to_revenue_ratio >= Number(value),
    },
    columns: {
      product_category_name: 'string',
      items_sold: 'integer',
      total_revenue: 'number',
      total_freight_cost: 'number',
      freight_to_revenue_ratio: 'number',
    },
    nullable: ['freight_to_revenue_ratio'],
    paged: true,
  },
} satisfies Record<string, ReadSpec>;

export type ReadName = keyof typeof READS;
export const READ_NAMES = Object.keys(READS) as ReadName[];

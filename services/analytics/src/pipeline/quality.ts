/**
 * Quality checks run after gold is loaded: key uniqueness, no orphan keys, and the batch
 * reconciled bronze → silver → gold (every bronze order item accounted for as loaded or
 * dropped for a stated reason; every loaded item present once in `fact_sales` with the
 * same amount). Any failure stops the build with the whole report.
 */
import type { DuckDbSession } from '../warehouse/duckdb-session.js';
import { PipelineError } from './pipeline-error.js';

export interface QualityCheck {
  name: string;
  passed: boolean;
  /** Offending rows (or amount difference); 0 when passed. */
  value: number;
}

export interface QualityReport {
  passed: boolean;
  checks: QualityCheck[];
  reconciliation: Record<string, number>;
}

const MUST_BE_ZERO: Array<[string, string]> = [
  [
    'dim_customer.customer_sk is unique',
    'SELECT count(*) - count(DISTINCT customer_sk) FROM gold.dim_customer',
  ],
  [
    'dim_product.product_sk is unique',
    'SELECT count(*) - count(DISTINCT product_sk) FROM gold.dim_product',
  ],
  ['dim_date.date_sk is unique', 'SELECT count(*) - count(DISTINCT date_sk) FROM gold.dim_date'],
  [
    'fact_sales (order_id, order_item_id) is unique',
    'SELECT count(*) - count(DISTINCT (order_id, order_item_id)) FROM gold.fact_sales',
  ],
  [
    'fact_sales.customer_sk has a dim_customer row',
    'SELECT count(*) FROM gold.fact_sales f ANTI JOIN gold.dim_customer d ON d.customer_sk = f.customer_sk',
  ],
  [
    'fact_sales.product_sk has a dim_product row',
    'SELECT count(*) FROM gold.fact_sales f ANTI JOIN gold.dim_product d ON d.product_sk = f.product_sk',
  ],
  [
    'fact_sales.order_date_sk has a dim_date row',
    'SELECT count(*) FROM gold.fact_sales f ANTI JOIN gold.dim_date d ON d.date_sk = f.order_date_sk',
  ],
  [
    'every silver sale is in fact_sales',
    'SELECT count(*) FROM silver.sales s ANTI JOIN gold.fact_sales f ON f.order_id = s.order_id AND f.order_item_id = s.order_item_id',
  ],
  [
    'revenue of the batch matches fact_sales',
    `SELECT coalesce(sum(abs(s.price - f.sales_amount) + abs(s.freight_value - f.freight_value)), 0)
     FROM silver.sales s JOIN gold.fact_sales f ON f.order_id = s.order_id AND f.order_item_id = s.order_item_id`,
  ],
];

const VALID_ITEM = `nullif(trim(order_id), '') IS NOT NULL AND try_cast(trim(order_item_id) AS INTEGER) IS NOT NULL
  AND nullif(trim(product_id), '') IS NOT NULL AND try_cast(trim(price) AS DECIMAL(18, 2)) IS NOT NULL
  AND try_cast(trim(freight_value) AS DECIMAL(18, 2)) IS NOT NULL`;

const RECONCILIATION = `
  SELECT
    (SELECT count(*) FROM bronze.order_items) AS bronze_items,
    (SELECT count(*) FROM bronze.order_items WHERE NOT (${VALID_ITEM})) AS dropped_invalid,
    (SELECT count(*) - count(DISTINCT (trim(order_id), try_cast(trim(order_item_id) AS INTEGER)))
       FROM bronze.order_items WHERE ${VALID_ITEM}) AS dropped_duplicate,
    (SELECT count(*) FROM silver.order_items i ANTI JOIN silver.orders o ON o.order_id = i.order_id) AS dropped_without_order,
    (SELECT count(*) FROM silver.sales) AS loaded_items`;

export async function checkQuality(db: DuckDbSession): Promise<QualityReport> {
  const checks: QualityCheck[] = [];
  for (const [name, sql] of MUST_BE_ZERO) {
    const [row] = await db.all(`SELECT (${sql}) AS value`);
    const value = Number(row!.value);
    checks.push({ name, passed: value === 0, value });
  }
  const [counts] = await db.all<Record<string, number>>(RECONCILIATION);
  const reconciliation = counts!;
  const accounted =
    reconciliation.dropped_invalid! +
    reconciliation.dropped_duplicate! +
    reconciliation.dropped_without_order! +
    reconciliation.loaded_items!;
  const difference = reconciliation.bronze_items! - accounted;
  checks.push({
    name: 'bronze order items = loaded + dropped',
    passed: difference === 0,
    value: difference,
  });
  return { passed: checks.every((c) => c.passed), checks, reconciliation };
}

export function assertQuality(report: QualityReport): void {
  if (report.passed) return;
  const failed = report.checks.filter((c) => !c.passed).map((c) => `${c.name} (${c.value})`);
  throw new PipelineError(`quality checks failed: ${failed.join('; ')}`, report);
}

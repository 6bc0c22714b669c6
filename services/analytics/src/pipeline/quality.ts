/**
 * Quality checks run after gold is loaded, folded into two queries:
 * - gold (one pass over the facts, joined to each dimension, plus one per dimension): key
 *   uniqueness of each dimension and of the fact grain, no orphan keys;
 * - the batch (one pass over bronze items, one over silver sales joined to the facts):
 *   every bronze order item accounted for as loaded or dropped for a stated reason, and
 *   every loaded item present once in `fact_sales` with the same amounts.
 * `checkQuality(db)` alone checks gold (as on a finished warehouse); the build adds the
 * batch checks while its temporary bronze and silver tables exist. Any failure stops the
 * build with the whole report.
 */
import type { DuckDbSession } from '../warehouse/duckdb-session.js';
import { PipelineError } from './pipeline-error.js';
import { VALID_ITEM } from './silver.js';

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

const GOLD_CHECKS = `
  SELECT
    (SELECT count(*) - count(DISTINCT customer_sk) FROM gold.dim_customer) AS "dim_customer.customer_sk is unique",
    (SELECT count(*) - count(DISTINCT product_sk) FROM gold.dim_product) AS "dim_product.product_sk is unique",
    (SELECT count(*) - count(DISTINCT date_sk) FROM gold.dim_date) AS "dim_date.date_sk is unique",
    facts.*
  FROM (
    SELECT count(*) - count(DISTINCT (f.order_id, f.order_item_id)) AS "fact_sales (order_id, order_item_id) is unique",
           count(*) FILTER (WHERE c.customer_sk IS NULL) AS "fact_sales.customer_sk has a dim_customer row",
           count(*) FILTER (WHERE p.product_sk IS NULL) AS "fact_sales.product_sk has a dim_product row",
           count(*) FILTER (WHERE d.date_sk IS NULL) AS "fact_sales.order_date_sk has a dim_date row"
    FROM gold.fact_sales f
    LEFT JOIN (SELECT DISTINCT customer_sk FROM gold.dim_customer) c ON c.customer_sk = f.customer_sk
    LEFT JOIN (SELECT DISTINCT product_sk FROM gold.dim_product) p ON p.product_sk = f.product_sk
    LEFT JOIN (SELECT DISTINCT date_sk FROM gold.dim_date) d ON d.date_sk = f.order_date_sk
  ) facts`;

const BATCH_CHECKS = `
  SELECT
    count(*) FILTER (WHERE f.order_id IS NULL) AS "every silver sale is in fact_sales",
    coalesce(sum(abs(s.price - f.sales_amount) + abs(s.freight_value - f.freight_value)), 0)
      AS "revenue of the batch matches fact_sales"
  FROM silver_sales s
  LEFT JOIN gold.fact_sales f ON f.order_id = s.order_id AND f.order_item_id = s.order_item_id`;

const RECONCILIATION = `
  SELECT items.*,
         (SELECT count(*) FROM silver_order_items) - (SELECT count(*) FROM silver_sales) AS dropped_without_order,
         (SELECT count(*) FROM silver_sales) AS loaded_items
  FROM (
    SELECT count(*) AS bronze_items,
           count(*) FILTER (WHERE NOT coalesce(${VALID_ITEM}, false)) AS dropped_invalid,
           count(*) FILTER (WHERE ${VALID_ITEM})
             - count(DISTINCT (order_id, try_cast(order_item_id AS INTEGER)))
                 FILTER (WHERE ${VALID_ITEM}) AS dropped_duplicate
    FROM bronze_order_items
  ) items`;

export async function checkQuality(
  db: DuckDbSession,
  options: { batch?: boolean } = {},
): Promise<QualityReport> {
  const checks: QualityCheck[] = [];
  const add = (row: Record<string, unknown>) => {
    for (const [name, raw] of Object.entries(row)) {
      const value = Number(raw);
      checks.push({ name, passed: value === 0, value });
    }
  };
  add((await db.all(GOLD_CHECKS))[0]!);
  let reconciliation: Record<string, number> = {};
  if (options.batch) {
    add((await db.all(BATCH_CHECKS))[0]!);
    reconciliation = (await db.all<Record<string, number>>(RECONCILIATION))[0]!;
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
  }
  return { passed: checks.every((c) => c.passed), checks, reconciliation };
}

export function assertQuality(report: QualityReport): void {
  if (report.passed) return;
  const failed = report.checks.filter((c) => !c.passed).map((c) => `${c.name} (${c.value})`);
  throw new PipelineError(`quality checks failed: ${failed.join('; ')}`, report);
}

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { openDuckDb, type DuckDbSession } from '../../src/warehouse/duckdb-session.js';
import { warehousePath } from '../../src/warehouse/paths.js';
import {
  expectedFreight,
  expectedKpis,
  expectedLtv,
  expectedMonthly,
  expectedYoy,
} from '../helpers/expected-views.js';
import { DROPPED, expectedSales, ITEMS, writeHandMadeData } from '../helpers/hand-made-data.js';

describe('the five views on a hand-made data set', () => {
  let dir: string;
  let db: DuckDbSession;
  const sales = expectedSales();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analytics-views-'));
    await writeHandMadeData(join(dir, 'source'));
    const result = await runPipeline({
      sourceDir: join(dir, 'source'),
      warehouseFile: warehousePath(dir),
    });
    assert.equal(result.quality.passed, true);
    db = await openDuckDb(warehousePath(dir), { readOnly: true });
  });
  after(async () => {
    db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const view = (name: string) => db.all(`SELECT * FROM raw_data.gold.${name}`);

  it('the data set has the edge cases the tests rely on', () => {
    const years = new Set(sales.map((s) => s.date.slice(0, 4)));
    assert.ok(years.has('2016') && years.has('2018') && !years.has('2017'), 'a missing year');
    assert.ok(
      sales.some((s) => s.priceCents === 0),
      'a zero-revenue item',
    );
    assert.ok(
      sales.some((s) => s.category === 'unknown' && s.priceCents > 100000),
      'an unknown category above the threshold',
    );
  });

  it('vw_executive_kpis', async () =>
    assert.deepEqual(await view('vw_executive_kpis'), expectedKpis(sales)));
  it('vw_monthly_sales: one row per year and month, newest first', async () =>
    assert.deepEqual(await view('vw_monthly_sales'), expectedMonthly(sales)));
  it('vw_yoy_growth: lag over the preceding row, null after a zero or absent year', async () => {
    const rows = await view('vw_yoy_growth');
    assert.deepEqual(rows, expectedYoy(sales));
    const y2016 = rows.find((r) => r.calendar_year === 2016)!;
    assert.equal(y2016.previous_year_revenue, 0);
    assert.equal(y2016.yoy_growth_percentage, null);
    const y2018 = rows.find((r) => r.calendar_year === 2018)!;
    assert.equal(
      y2018.previous_year_revenue,
      rows.find((r) => r.calendar_year === 2016)!.current_revenue,
    );
  });
  it('vw_customer_ltv_ranking: positive LTV only, ties share a dense rank', async () => {
    const rows = await view('vw_customer_ltv_ranking');
    assert.deepEqual(rows, expectedLtv(sales));
    assert.ok(rows.every((r) => (r.lifetime_value as number) > 0));
    const ranks = rows.map((r) => r.ltv_rank as number);
    assert.ok(
      ranks.some((rank, i) => ranks.indexOf(rank) !== i),
      'a tie shares its rank',
    );
  });
  it('vw_category_freight_burden: no unknown, revenue strictly above 1000, ratio descending', async () => {
    const rows = await view('vw_category_freight_burden');
    assert.deepEqual(rows, expectedFreight(sales));
    const names = rows.map((r) => r.product_category_name);
    assert.ok(names.includes('toys'), '1000.01 is above the threshold');
    assert.ok(!names.includes('food'), 'exactly 1000 is not above the threshold');
    assert.ok(!names.includes('unknown'));
    assert.ok(
      names.includes('pc_gamer'),
      'a category without translation keeps its Portuguese name',
    );
  });

  it('silver resolves customers and drops bad rows, and the quality report accounts for each', async () => {
    const [reconciliation] = await db.all(`SELECT
      (SELECT count(*) FROM gold.fact_sales) AS facts,
      (SELECT count(*) FROM gold.dim_customer) AS customers,
      (SELECT count(*) FROM gold.dim_product WHERE product_category_name = 'unknown') AS unknown_products,
      (SELECT sales_amount FROM gold.fact_sales WHERE order_id = 'o2' AND order_item_id = 1) AS o2_price`);
    assert.equal(reconciliation!.facts, sales.length);
    assert.equal(reconciliation!.customers, new Set(sales.map((s) => s.customerUniqueId)).size);
    // p3 has no category; p2's category has no English name and keeps its Portuguese one.
    assert.equal(reconciliation!.unknown_products, 1);
    assert.equal(reconciliation!.o2_price, 500);
    assert.equal(
      ITEMS.length,
      sales.length + DROPPED.invalid + DROPPED.duplicate + DROPPED.withoutOrder,
    );
  });
});

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateDataset } from '../../src/generate/generate-dataset.js';
import { OLIST_FILES } from '../../src/olist-format.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { openDuckDb, type DuckDbSession } from '../../src/warehouse/duckdb-session.js';
import { warehouseDir, warehousePath } from '../../src/warehouse/paths.js';
import {
  expectedFreight,
  expectedKpis,
  expectedLtv,
  expectedMonthly,
  expectedYoy,
} from '../helpers/expected-views.js';
import type { Sale } from '../helpers/hand-made-data.js';

/** The generated files' rows (their quoted fields hold no commas or quotes). */
async function rows(dir: string, file: string): Promise<Record<string, string>[]> {
  const [header, ...lines] = (await readFile(join(dir, file), 'utf8')).trimEnd().split('\n');
  const columns = header!.split(',').map((c) => c.replaceAll('"', ''));
  return lines.map((line) =>
    Object.fromEntries(line.split(',').map((v, i) => [columns[i]!, v.replaceAll('"', '')])),
  );
}

/** Sales straight from the CSV files, by the silver rules (every generated row is valid). */
async function salesFromCsv(dir: string): Promise<Sale[]> {
  const uniqueOf = new Map(
    (await rows(dir, OLIST_FILES.customers.file)).map((c) => [
      c.customer_id!,
      c.customer_unique_id!,
    ]),
  );
  const english = new Map(
    (await rows(dir, OLIST_FILES.categoryTranslation.file)).map((t) => [
      t.product_category_name!,
      t.product_category_name_english!,
    ]),
  );
  const categoryOf = new Map(
    (await rows(dir, OLIST_FILES.products.file)).map((p) => [
      p.product_id!,
      english.get(p.product_category_name!) ?? (p.product_category_name || 'unknown'),
    ]),
  );
  const orders = new Map((await rows(dir, OLIST_FILES.orders.file)).map((o) => [o.order_id!, o]));
  return (await rows(dir, OLIST_FILES.orderItems.file)).map((item) => {
    const order = orders.get(item.order_id!)!;
    return {
      orderId: item.order_id!,
      itemId: Number(item.order_item_id),
      customerUniqueId: uniqueOf.get(order.customer_id!)!,
      productId: item.product_id!,
      category: categoryOf.get(item.product_id!)!,
      date: order.order_purchase_timestamp!.slice(0, 10),
      status: order.order_status!.toLowerCase(),
      priceCents: Math.round(Number(item.price) * 100),
      freightCents: Math.round(Number(item.freight_value) * 100),
    };
  });
}

describe('the five views on a generated data set, against an independent computation', () => {
  let dir: string;
  let db: DuckDbSession;
  let sales: Sale[];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analytics-genviews-'));
    await generateDataset({ outDir: join(dir, 'source'), orders: 1500, seed: 11 });
    await mkdir(warehouseDir(dir), { recursive: true });
    await runPipeline({ sourceDir: join(dir, 'source'), warehouseFile: warehousePath(dir) });
    db = await openDuckDb(warehousePath(dir), { readOnly: true });
    sales = await salesFromCsv(join(dir, 'source'));
  });
  after(async () => {
    db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const view = (name: string) => db.all(`SELECT * FROM raw_data.gold.${name}`);

  it('vw_executive_kpis', async () =>
    assert.deepEqual(await view('vw_executive_kpis'), expectedKpis(sales)));
  it('vw_monthly_sales', async () =>
    assert.deepEqual(await view('vw_monthly_sales'), expectedMonthly(sales)));
  it('vw_yoy_growth', async () =>
    assert.deepEqual(await view('vw_yoy_growth'), expectedYoy(sales)));
  it('vw_category_freight_burden', async () =>
    assert.deepEqual(await view('vw_category_freight_burden'), expectedFreight(sales)));
  it('vw_customer_ltv_ranking: all ten deciles, sized as ntile sizes them', async () => {
    const rows = await view('vw_customer_ltv_ranking');
    assert.deepEqual(rows, expectedLtv(sales));
    const sizes = Array.from(
      { length: 10 },
      (_, d) => rows.filter((r) => r.ltv_decile === d + 1).length,
    );
    assert.ok(sizes.every((n) => n > 0));
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1);
    assert.ok(
      sizes.every((n, i) => i === 0 || n <= sizes[i - 1]!),
      'larger buckets first',
    );
  });
});

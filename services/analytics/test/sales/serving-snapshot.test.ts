/**
 * The small views and the LTV ranking answered from memory (`serving-snapshot.ts`,
 * `range-read.ts`) answer exactly what DuckDB
 * computes for the same read — rows, totals, filters, pages past the end — and a new
 * build replaces the rows held, with the result cache off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { READS, type ReadName } from '../../src/sales/catalog.js';
import { heldRanking } from '../../src/sales/range-read.js';
import { readView, type ReadParams } from '../../src/sales/read-view.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { ORDERS } from '../helpers/hand-made-data.js';
import {
  createWarehouseFixture,
  recordingQueries,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

/** Reads of the views held in memory: each filter with a row test, paging, edges. */
const READS_TO_COMPARE: Array<[ReadName, ReadParams]> = [
  ['sales_summary', {}],
  ['yoy_growth', {}],
  ['yoy_growth', { limit: 1 }],
  ['yoy_growth', { limit: 2 }],
  ['monthly_trends', {}],
  ['monthly_trends', { limit: 1, offset: 2 }],
  ['monthly_trends', { offset: 1000 }],
  ...[2016, 2017, 2018, 2019, 2100].map((year): [ReadName, ReadParams] => [
    'monthly_trends',
    { year },
  ]),
  ['monthly_trends', { from: '2018-01' }],
  ['monthly_trends', { to: '2018-06' }],
  ['monthly_trends', { from: '2016-03', to: '2018-07', limit: 2, offset: 1 }],
  ['monthly_trends', { from: '2018-07', to: '2018-07' }],
  ['monthly_trends', { from: '2019-01', to: '2016-01' }],
  ['monthly_trends', { year: 2018, from: '2018-03' }],
  ['category_analysis', {}],
  ['category_analysis', { min_ratio: 0 }],
  ['category_analysis', { min_ratio: 10 }],
  ['category_analysis', { min_ratio: 29.99 }],
  ['category_analysis', { min_ratio: 100000 }],
  ['category_analysis', { min_ratio: 5, limit: 1, offset: 1 }],
  // The LTV ranking's rows held: pages, deciles, both stored orders, past the end.
  ['top_customers', {}],
  ['top_customers', { limit: 2, offset: 3 }],
  ['top_customers', { sort: 'ltv_asc', limit: 3, offset: 1 }],
  ['top_customers', { sort: 'ltv_desc', offset: 5 }],
  ...[1, 2, 5, 10].flatMap((decile): Array<[ReadName, ReadParams]> => [
    ['top_customers', { decile }],
    ['top_customers', { decile, limit: 1, offset: 1 }],
    ['top_customers', { decile, sort: 'ltv_asc', limit: 1 }],
  ]),
  ['top_customers', { offset: 1000 }],
  ['top_customers', { decile: 3, offset: 1000 }],
];

describe('views answered from memory', () => {
  let fixture: WarehouseFixture;
  let uncached: Warehouse;

  before(async () => {
    fixture = await createWarehouseFixture();
    uncached = createWarehouse({ file: fixture.file, cacheEntries: 0 });
  });
  after(async () => {
    await uncached.close();
    await fixture.cleanup();
  });

  it('every view held in memory is one the catalog marks as such, and only those', () => {
    const held = Object.entries(READS)
      .filter(([, spec]) => 'inMemory' in spec)
      .map(([name]) => name);
    assert.deepEqual(held.sort(), [
      'category_analysis',
      'monthly_trends',
      'sales_summary',
      'yoy_growth',
    ]);
  });

  it('answers each read exactly as DuckDB computes it', async () => {
    // The ranking's rows load in the background (pages are range queries meanwhile).
    const customers = (await readView(uncached, 'top_customers', { limit: 1 })).meta.total;
    const held = await heldRanking(uncached, READS.top_customers, customers);
    await held.value.loaded;
    assert.equal(held.value.rows?.length, customers);
    // Every ratio of the view as a bound too: a row exactly at it is kept (>=, not >).
    const categories = await readView(uncached, 'category_analysis', {}, { inMemory: false });
    const atRatios = categories.data.map((row): [ReadName, ReadParams] => [
      'category_analysis',
      { min_ratio: Number(row.freight_to_revenue_ratio ?? 0) },
    ]);
    let nonEmpty = 0;
    for (const [name, params] of [...READS_TO_COMPARE, ...atRatios]) {
      const fromMemory = await readView(uncached, name, params);
      const computed = await readView(uncached, name, params, { inMemory: false });
      assert.deepEqual(fromMemory, computed, `${name} ${JSON.stringify(params)}`);
      if (fromMemory.data.length > 0) nonEmpty += 1;
    }
    // The comparison is not of empty pages only (a few pages are past the end on purpose).
    assert.ok(
      nonEmpty >= 0.7 * (READS_TO_COMPARE.length + atRatios.length),
      `${nonEmpty} non-empty pages`,
    );
  });

  it('once a view is held, its reads run no query; other reads still do', async () => {
    const sql: string[] = [];
    const counting = recordingQueries(uncached, sql);
    for (const [name, params] of READS_TO_COMPARE) await readView(counting, name, params);
    // At most one read of each view held (none when an earlier test already held it).
    assert.ok(sql.length <= 6, sql.join('\n'));
    sql.length = 0;
    for (const [name, params] of READS_TO_COMPARE) await readView(counting, name, params);
    assert.deepEqual(sql, []);
    await readView(counting, 'monthly_trends', { status: 'delivered' });
    await readView(counting, 'category_analysis', {}, { inMemory: false });
    assert.equal(sql.length, 2, sql.join('\n'));
  });

  it('a filter without a row test (status) is computed by DuckDB, from the rollup', async () => {
    const delivered = await readView(uncached, 'monthly_trends', { status: 'canceled' });
    const all = await readView(uncached, 'monthly_trends', {});
    assert.ok(delivered.data.length > 0);
    assert.notDeepEqual(delivered.data, all.data);
  });

  it('a new build replaces the rows held, with the result cache off', async () => {
    const before = await readView(uncached, 'sales_summary');
    await fixture.build({
      items: [['o99', '1', 'p1', '100.00', '1.00']],
      orders: [...ORDERS, ['o99', 'c1', '2019-09-09 09:09:09']],
    });
    const after = await readView(uncached, 'sales_summary');
    assert.notEqual(after.meta.build_id, before.meta.build_id);
    assert.deepEqual(after, await readView(uncached, 'sales_summary', {}, { inMemory: false }));
    assert.equal(
      (after.data[0] as { total_lifetime_orders: number }).total_lifetime_orders,
      (before.data[0] as { total_lifetime_orders: number }).total_lifetime_orders + 1,
    );
  });
});

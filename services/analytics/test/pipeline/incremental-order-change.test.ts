/**
 * An incremental batch that changes an order (status, purchase month, customer) but
 * carries only some of its items, or none: every item of the order must take the order's
 * new attributes, so the filtered KPI and monthly reads (rolled up from the per-status
 * and per-customer-month serving tables, which add up order counts on the assumption
 * that an order has one month, status and customer) agree with the unfiltered views and
 * with the views computed from the sales as silver states them now.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ORDER_STATUSES } from '../../src/olist-format.js';
import { openDuckDb } from '../../src/warehouse/duckdb-session.js';
import { readView } from '../../src/sales/read-view.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { expectedKpis, expectedLtv, expectedMonthly } from '../helpers/expected-views.js';
import { expectedSales, ITEMS, type Sale } from '../helpers/hand-made-data.js';
import { createWarehouseFixture, type WarehouseFixture } from '../helpers/warehouse-fixture.js';

/** The batch: three orders changed, with one of two items, or none of their items. */
const BATCH_ORDERS: string[][] = [
  // o2 (two items, March 2016, delivered): cancelled and moved to April; only item 2 comes.
  ['o2', 'c1', '2016-04-12 09:30:00', 'canceled'],
  // o4 (two items, delivered): shipped again; none of its items come.
  ['o4', 'c3', '2018-01-15 12:00:00', 'shipped'],
  // o5 (customer u3): now customer c5 (u4); none of its items come.
  ['o5', 'c5', '2018-07-04 08:00:00'],
];
const BATCH_ITEMS = ITEMS.filter(([order, item]) => order === 'o2' && item === '2');

/** The sales as the source states them after the batch: each order's current attributes on every item. */
function salesAfterBatch(): Sale[] {
  const changed: Record<string, Partial<Sale>> = {
    o2: { status: 'canceled', date: '2016-04-12' },
    o4: { status: 'shipped' },
    o5: { customerUniqueId: 'u4' },
  };
  return expectedSales().map((sale) => ({ ...sale, ...changed[sale.orderId] }));
}

const month = (sale: Sale) => sale.date.slice(0, 7);

describe('an incremental batch that changes an order without all its items', () => {
  let fixture: WarehouseFixture;
  let warehouse: Warehouse;
  const sales = salesAfterBatch();

  before(async () => {
    fixture = await createWarehouseFixture();
    await fixture.build({ items: BATCH_ITEMS, orders: BATCH_ORDERS });
    warehouse = createWarehouse({ file: fixture.file, cacheEntries: 0 });
  });
  after(async () => {
    await warehouse.close();
    await fixture.cleanup();
  });

  const read = async (name: 'sales_summary' | 'monthly_trends', params = {}) =>
    (await readView(warehouse, name, { limit: 1000, ...params })).data;
  const kpis = (params: Record<string, string> = {}) => read('sales_summary', params);

  it('every item of an order has its status, date and customer', async () => {
    const db = await openDuckDb(fixture.file, { readOnly: true });
    try {
      const split = await db.all(
        `SELECT order_id FROM gold.fact_sales GROUP BY order_id
         HAVING count(DISTINCT (order_status, order_date_sk, customer_sk)) > 1 ORDER BY order_id`,
      );
      assert.deepEqual(split, []);
      const changed = await db.all(
        `SELECT order_id, order_item_id, order_status, order_date_sk
         FROM gold.fact_sales WHERE order_id IN ('o2', 'o4') ORDER BY ALL`,
      );
      assert.deepEqual(changed, [
        { order_id: 'o2', order_item_id: 1, order_status: 'canceled', order_date_sk: 20160412 },
        { order_id: 'o2', order_item_id: 2, order_status: 'canceled', order_date_sk: 20160412 },
        { order_id: 'o4', order_item_id: 1, order_status: 'shipped', order_date_sk: 20180115 },
        { order_id: 'o4', order_item_id: 2, order_status: 'shipped', order_date_sk: 20180115 },
      ]);
    } finally {
      db.close();
    }
  });

  it('the unfiltered views count each changed order once, with its new attributes', async () => {
    assert.deepEqual(await kpis(), expectedKpis(sales));
    assert.deepEqual(await read('monthly_trends'), expectedMonthly(sales));
    const ranking = await readView(warehouse, 'top_customers', { limit: 1000 });
    assert.deepEqual(ranking.data, expectedLtv(sales));
  });

  it('the KPIs filtered by every status, or by a month range, agree with the unfiltered ones', async () => {
    const everyStatus = ORDER_STATUSES.join(',');
    assert.deepEqual(await kpis({ status: everyStatus }), await kpis());
    assert.deepEqual(await kpis({ status: everyStatus }), expectedKpis(sales));
    assert.deepEqual(await kpis({ from: '2000-01', to: '2030-12' }), expectedKpis(sales));
  });

  it('each status and month holds the changed orders where the batch put them', async () => {
    for (const status of ['delivered', 'shipped', 'canceled']) {
      const ofStatus = sales.filter((s) => s.status === status);
      assert.deepEqual(await kpis({ status }), expectedKpis(ofStatus), status);
      assert.deepEqual(
        await read('monthly_trends', { status }),
        expectedMonthly(ofStatus),
        `monthly, ${status}`,
      );
    }
    for (const [from, to] of [
      ['2016-03', '2016-03'],
      ['2016-04', '2016-04'],
      ['2016-03', '2016-04'],
    ] as const) {
      const inRange = sales.filter((s) => month(s) >= from && month(s) <= to);
      assert.deepEqual(await kpis({ from, to }), expectedKpis(inRange), `${from}..${to}`);
      assert.deepEqual(
        await kpis({ from, to, status: 'canceled' }),
        expectedKpis(inRange.filter((s) => s.status === 'canceled')),
        `${from}..${to}, canceled`,
      );
    }
  });
});

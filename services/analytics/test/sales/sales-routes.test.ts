import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { buildAnalyticsApp } from '../../src/app.js';
import { OLIST_FILES } from '../../src/olist-format.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { READ_NAMES, READS } from '../../src/sales/catalog.js';
import { openDuckDb } from '../../src/warehouse/duckdb-session.js';
import { expectedKpis, expectedLtv, expectedMonthly } from '../helpers/expected-views.js';
import { expectedSales, ORDERS, writeHandMadeData } from '../helpers/hand-made-data.js';
import {
  createWarehouseFixture,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';

describe('REST reads', () => {
  let fixture: WarehouseFixture;
  let app: FastifyInstance;
  const views: Record<string, unknown[]> = {};

  before(async () => {
    fixture = await createWarehouseFixture();
    app = await buildAnalyticsApp({ warehouse: fixture.warehouse, logger: silentLogger() });
    const db = await openDuckDb(fixture.file, { readOnly: true });
    for (const name of READ_NAMES)
      views[name] = await db.all(`SELECT * FROM raw_data.gold.${READS[name].view}`);
    db.close();
  });
  after(async () => {
    await app.close();
    await fixture.cleanup();
  });

  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url });
    return { status: response.statusCode, body: response.json() };
  };

  for (const name of READ_NAMES) {
    it(`${READS[name].path} returns exactly ${READS[name].view}, in the { data, meta } wrapper`, async () => {
      const { status, body } = await get(READS[name].path);
      assert.equal(status, 200);
      assert.deepEqual(body.data, views[name]);
      assert.equal(body.meta.view, `raw_data.gold.${READS[name].view}`);
      assert.equal(body.meta.count, views[name]!.length);
      assert.equal(body.meta.total, views[name]!.length);
    });
  }

  it('numbers are JSON numbers', async () => {
    const { body } = await get('/api/v1/sales/kpis');
    for (const value of Object.values(body.data[0] as Record<string, unknown>))
      assert.equal(typeof value, 'number');
  });

  it('month ranges on the monthly read: from and to, inclusive, and a 400 naming a bad month', async () => {
    const all = views.monthly_trends as Array<{ sales_year: number; sales_month: number }>;
    const key = (row: { sales_year: number; sales_month: number }) =>
      row.sales_year * 100 + row.sales_month;
    const keys = all.map(key).sort((a, b) => a - b);
    const [first, last] = [keys[0]!, keys.at(-1)!];
    const asMonth = (k: number) => `${Math.floor(k / 100)}-${String(k % 100).padStart(2, '0')}`;
    const { status, body } = await get(
      `/api/v1/sales/monthly-trend?from=${asMonth(first)}&to=${asMonth(first)}`,
    );
    assert.equal(status, 200);
    assert.deepEqual(
      body.data,
      all.filter((row) => key(row) === first),
    );
    assert.deepEqual(body.meta.filters, { from: asMonth(first), to: asMonth(first) });
    const later = await get(`/api/v1/sales/monthly-trend?from=${asMonth(last)}`);
    assert.deepEqual(
      later.body.data,
      all.filter((row) => key(row) >= last),
    );
    for (const bad of ['2018-13', '2018-1', 'last-month', "2018-01' OR 1=1"]) {
      const refused = await get(`/api/v1/sales/monthly-trend?from=${encodeURIComponent(bad)}`);
      assert.equal(refused.status, 400, bad);
      assert.match(refused.body.detail, /from/, bad);
    }
  });

  it('KPIs for a month range and order statuses, and monthly rows of some statuses, rolled up exactly', async () => {
    const sales = expectedSales();
    const month = (s: { date: string }) => s.date.slice(0, 7);
    const all = await get('/api/v1/sales/kpis?from=1900-01&to=2100-12');
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.data, views.sales_summary, 'the whole range is the all-time view');
    const range = await get('/api/v1/sales/kpis?from=2016-03&to=2018-07');
    assert.deepEqual(
      range.body.data,
      expectedKpis(sales.filter((s) => month(s) >= '2016-03' && month(s) <= '2018-07')),
    );
    assert.deepEqual(range.body.meta.filters, { from: '2016-03', to: '2018-07' });
    const open = await get('/api/v1/sales/kpis?status=delivered,shipped&from=2018-01');
    assert.deepEqual(
      open.body.data,
      expectedKpis(sales.filter((s) => s.status !== 'canceled' && month(s) >= '2018-01')),
    );
    const none = await get('/api/v1/sales/kpis?from=2030-01');
    assert.deepEqual(none.body.data, expectedKpis([]));

    const delivered = await get('/api/v1/sales/monthly-trend?status=delivered');
    assert.deepEqual(
      delivered.body.data,
      expectedMonthly(sales.filter((s) => s.status === 'delivered')),
    );
    assert.equal(delivered.body.meta.total, delivered.body.data.length);
    const canceled = await get('/api/v1/sales/monthly-trend?status=canceled&limit=1');
    assert.deepEqual(
      canceled.body.data,
      expectedMonthly(sales.filter((s) => s.status === 'canceled')).slice(0, 1),
    );
    assert.equal(canceled.body.meta.total, 1);
    const everyStatus = await get(
      '/api/v1/sales/monthly-trend?status=delivered,shipped,canceled&year=2019',
    );
    assert.deepEqual(
      everyStatus.body.data,
      expectedMonthly(sales).filter((r) => r.sales_year === 2019),
    );
    for (const bad of ['cancelled', 'delivered,', 'DELIVERED', "delivered' OR 1=1", '']) {
      const refused = await get(`/api/v1/sales/kpis?status=${encodeURIComponent(bad)}`);
      assert.equal(refused.status, 400, bad);
      assert.match(refused.body.detail, /status/, bad);
    }
    const badMonth = await get('/api/v1/sales/kpis?to=2018-00');
    assert.equal(badMonth.status, 400);
    assert.match(badMonth.body.detail, /to/);
  });

  it('sorts the LTV ranking by a named order only', async () => {
    const ranking = views.top_customers as Array<Record<string, number | string>>;
    const asc = await get('/api/v1/analytics/customer-ltv?sort=ltv_asc&limit=1000');
    assert.equal(asc.status, 200);
    assert.deepEqual(asc.body.data, [...ranking].reverse());
    assert.equal(asc.body.meta.sort, 'ltv_asc');
    const byOrders = await get('/api/v1/analytics/customer-ltv?sort=orders_desc&limit=1000');
    const orders = byOrders.body.data.map((row: { total_orders: number }) => row.total_orders);
    assert.deepEqual(
      orders,
      [...orders].sort((a: number, b: number) => b - a),
    );
    assert.equal((await get('/api/v1/analytics/customer-ltv')).body.meta.sort, 'ltv_desc');
    const refused = await get('/api/v1/analytics/customer-ltv?sort=customer_sk');
    assert.equal(refused.status, 400);
    assert.match(refused.body.detail, /sort/);
  });

  it('answers CSV to a client that prefers it, with the same rows and validators', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/analytics/customer-ltv?limit=3',
      headers: { accept: 'text/csv' },
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/csv/);
    const lines = response.body.trimEnd().split('\r\n');
    assert.equal(lines[0], 'customer_sk,total_orders,lifetime_value,ltv_decile,ltv_rank');
    const ranking = views.top_customers as Array<Record<string, unknown>>;
    assert.deepEqual(
      lines.slice(1),
      ranking
        .slice(0, 3)
        .map((row) =>
          ['customer_sk', 'total_orders', 'lifetime_value', 'ltv_decile', 'ltv_rank']
            .map((c) => String(row[c]))
            .join(','),
        ),
    );
    assert.match(String(response.headers.etag), /\.csv"$/);
    const json = await app.inject({
      method: 'GET',
      url: '/api/v1/analytics/customer-ltv?limit=3',
      headers: { accept: 'application/json, text/csv;q=0.5' },
    });
    assert.match(String(json.headers['content-type']), /json/);
  });

  it('filters and pages: year, decile, min_ratio, limit, offset', async () => {
    const sales = expectedSales();
    const y2018 = await get('/api/v1/sales/monthly-trend?year=2018');
    assert.deepEqual(
      y2018.body.data,
      expectedMonthly(sales).filter((r) => r.sales_year === 2018),
    );
    assert.deepEqual(y2018.body.meta.filters, { year: 2018 });

    const ltv = expectedLtv(sales);
    const page = await get('/api/v1/analytics/customer-ltv?limit=2&offset=1');
    assert.deepEqual(page.body.data, ltv.slice(1, 3));
    assert.equal(page.body.meta.total, ltv.length);
    assert.equal(page.body.meta.limit, 2);
    const decile = await get('/api/v1/analytics/customer-ltv?decile=2');
    assert.deepEqual(
      decile.body.data,
      ltv.filter((r) => r.ltv_decile === 2),
    );

    const freight = await get('/api/v1/analytics/categories/freight?min_ratio=29.99');
    assert.ok(freight.body.data.length > 0);
    assert.ok(
      freight.body.data.every(
        (r: { freight_to_revenue_ratio: number }) => r.freight_to_revenue_ratio >= 29.99,
      ),
    );
    assert.ok(freight.body.data.length < views.category_analysis!.length);
  });

  it('pages deep in the LTV ranking and within a decile are slices of the view', async () => {
    const ltv = expectedLtv(expectedSales());
    for (let offset = 0; offset <= ltv.length; offset++) {
      const { body } = await get(`/api/v1/analytics/customer-ltv?limit=3&offset=${offset}`);
      assert.deepEqual(body.data, ltv.slice(offset, offset + 3), `offset ${offset}`);
      assert.equal(body.meta.total, ltv.length);
    }
    for (const decile of [1, 5, 10]) {
      const rows = ltv.filter((r) => r.ltv_decile === decile);
      const { body } = await get(`/api/v1/analytics/customer-ltv?decile=${decile}&offset=0`);
      assert.deepEqual(body.data, rows);
      assert.equal(body.meta.total, rows.length, `decile ${decile}`);
    }
    // Pages are ranges of the ranking's row numbers: every window of a decile, best or
    // worst first, and pages past the end (no rows, the total still given).
    const reversed = [...ltv].reverse();
    for (let offset = 0; offset <= ltv.length + 1; offset++) {
      const { body } = await get(
        `/api/v1/analytics/customer-ltv?sort=ltv_asc&limit=2&offset=${offset}`,
      );
      assert.deepEqual(body.data, reversed.slice(offset, offset + 2), `ltv_asc offset ${offset}`);
      assert.equal(body.meta.total, ltv.length);
    }
    for (const decile of [1, 2, 10]) {
      const rows = ltv.filter((r) => r.ltv_decile === decile);
      for (let offset = 0; offset <= rows.length + 1; offset++) {
        for (const sort of ['ltv_desc', 'ltv_asc']) {
          const { body } = await get(
            `/api/v1/analytics/customer-ltv?decile=${decile}&sort=${sort}&limit=2&offset=${offset}`,
          );
          const ordered = sort === 'ltv_asc' ? [...rows].reverse() : rows;
          const at = `decile ${decile} ${sort} offset ${offset}`;
          assert.deepEqual(body.data, ordered.slice(offset, offset + 2), at);
          assert.equal(body.meta.total, rows.length, at);
          assert.equal(body.meta.count, body.data.length, at);
        }
      }
    }
  });

  it('answers carry the build: ETag, Last-Modified, data_as_of; a matching If-None-Match is 304', async () => {
    const first = await app.inject({
      method: 'GET',
      url: '/api/v1/analytics/customer-ltv?limit=2',
    });
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[\w-]+\.json"$/);
    const meta = first.json().meta;
    assert.equal(etag, `"${meta.build_id}.json"`);
    assert.ok(!Number.isNaN(Date.parse(meta.data_as_of)));
    assert.equal(first.headers['last-modified'], new Date(meta.data_as_of).toUTCString());
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await app.inject({
        method: 'GET',
        url: '/api/v1/analytics/customer-ltv?limit=2',
        headers: { 'if-none-match': ifNoneMatch },
      });
      assert.equal(again.statusCode, 304, ifNoneMatch);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, etag);
    }
    const other = await app.inject({
      method: 'GET',
      url: '/api/v1/sales/kpis',
      headers: { 'if-none-match': '"some-older-build.json"' },
    });
    assert.equal(other.statusCode, 200);
    assert.equal(other.json().meta.build_id, meta.build_id);
  });

  it('a bad parameter is a 400 with a detail naming it', async () => {
    for (const [url, named] of [
      ['/api/v1/analytics/customer-ltv?limit=0', 'limit'],
      ['/api/v1/analytics/customer-ltv?limit=1001', 'limit'],
      ['/api/v1/analytics/customer-ltv?limit=abc', 'limit'],
      ['/api/v1/analytics/customer-ltv?limit=1.5', 'limit'],
      ['/api/v1/analytics/customer-ltv?decile=11', 'decile'],
      ['/api/v1/analytics/customer-ltv?offset=-1', 'offset'],
      ['/api/v1/analytics/customer-ltv?sort=name', 'sort'],
      ['/api/v1/sales/monthly-trend?year=20x8', 'year'],
      ['/api/v1/sales/monthly-trend?status=delivered,lost', 'status'],
      ['/api/v1/sales/kpis?from=2018-13', 'from'],
      ['/api/v1/sales/kpis?to=2018-01&to=2018-02', 'to'],
      ['/api/v1/analytics/categories/freight?min_ratio=-5', 'min_ratio'],
      ['/api/v1/analytics/categories/freight?min_ratio=Infinity', 'min_ratio'],
      ['/api/v1/analytics/categories/freight?min_ratio=-Infinity', 'min_ratio'],
      ['/api/v1/analytics/categories/freight?min_ratio=1e999', 'min_ratio'],
      ['/api/v1/analytics/customer-ltv?limit=Infinity', 'limit'],
      ['/api/v1/analytics/customer-ltv?offset=-Infinity', 'offset'],
      ['/api/v1/sales/monthly-trend?year=1e999', 'year'],
      // A parameter the read does not have is named too.
      ['/api/v1/sales/kpis?limit=5', 'limit'],
      ['/api/v1/sales/yoy?limit=1;DROP TABLE x', 'limit'],
      ['/api/v1/sales/yoy?offset=5', 'offset'],
    ] as const) {
      const { status, body } = await get(url);
      assert.equal(status, 400, url);
      assert.equal(body.code, 'REQUEST_INVALID', url);
      assert.match(body.detail, new RegExp(`querystring(/| .*: )${named}\\b`), url);
    }
  });

  it('the OpenAPI document describes every read with its parameters', async () => {
    const { body } = await get('/openapi.json');
    for (const name of READ_NAMES) {
      const operation = body.paths[READS[name].path].get;
      assert.equal(operation.summary, READS[name].summary);
      const parameters: { name: string; in: string }[] = operation.parameters ?? [];
      const named = (where: string) =>
        parameters
          .filter((p) => p.in === where)
          .map((p) => p.name)
          .sort();
      assert.deepEqual(named('query'), Object.keys(READS[name].params).sort());
      assert.deepEqual(named('header'), ['accept', 'if-none-match']);
      assert.ok(operation.responses['200'].content['text/csv'], 'the CSV representation');
    }
  });
});

describe('before the warehouse is built', () => {
  let fixture: WarehouseFixture;
  let app: FastifyInstance;
  before(async () => {
    fixture = await createWarehouseFixture({ built: false });
    app = await buildAnalyticsApp({ warehouse: fixture.warehouse, logger: silentLogger() });
  });
  after(async () => {
    await app.close();
    await fixture.cleanup();
  });

  it('reads and health answer 503, then 200 once a build lands', async () => {
    const read = await app.inject({ method: 'GET', url: '/api/v1/sales/kpis' });
    assert.equal(read.statusCode, 503);
    assert.match(read.json().detail, /warehouse is not built/);
    const health = await app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 503);
    assert.equal(health.json().dependencies.warehouse.status, 'down');
    await fixture.build();
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    const after = await app.inject({ method: 'GET', url: '/api/v1/sales/kpis' });
    assert.equal(after.statusCode, 200);
    assert.equal(
      after.json().data[0].total_lifetime_orders,
      new Set(expectedSales().map((s) => s.orderId)).size,
    );
  });

  it('a rebuild is picked up without a restart (no stale cached answer, a new ETag)', async () => {
    const first = await app.inject({ method: 'GET', url: '/api/v1/sales/kpis' });
    const before = first.json().data[0];
    assert.deepEqual(
      (await app.inject({ method: 'GET', url: '/api/v1/sales/kpis' })).json().data[0],
      before,
    );
    await fixture.build({
      items: [['o99', '1', 'p1', '100.00', '1.00']],
      orders: [...ORDERS, ['o99', 'c1', '2019-09-09 09:09:09']],
    });
    const rebuilt = await app.inject({
      method: 'GET',
      url: '/api/v1/sales/kpis',
      headers: { 'if-none-match': first.headers.etag as string },
    });
    assert.equal(rebuilt.statusCode, 200, 'the old ETag no longer matches');
    assert.notEqual(rebuilt.headers.etag, first.headers.etag);
    const after = rebuilt.json().data[0];
    assert.equal(after.total_lifetime_orders, before.total_lifetime_orders + 1);
    assert.equal(
      after.total_lifetime_revenue,
      Math.round((before.total_lifetime_revenue + 100) * 100) / 100,
    );
  });

  it('a failed build leaves the last good warehouse serving, same build and answers', async () => {
    const before = await app.inject({ method: 'GET', url: '/api/v1/analytics/customer-ltv' });
    const source = join(fixture.dataDir, 'broken');
    await writeHandMadeData(source);
    await writeFile(join(source, OLIST_FILES.orderItems.file), 'order_id,order_item_id\n"o1,1\n');
    await assert.rejects(
      runPipeline({ sourceDir: source, warehouseFile: fixture.file }),
      /olist_order_items_dataset\.csv/,
    );
    const after = await app.inject({ method: 'GET', url: '/api/v1/analytics/customer-ltv' });
    assert.equal(after.statusCode, 200);
    assert.equal(after.headers.etag, before.headers.etag);
    assert.deepEqual(after.json(), before.json());
    assert.deepEqual(readdirSync(dirname(fixture.file)), ['raw_data.duckdb'], 'no scratch left');
  });
});

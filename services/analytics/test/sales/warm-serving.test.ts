/**
 * The app loads the serving data its reads plan with before it answers (`warm-serving.ts`):
 * once `buildAnalyticsApp` resolves, the LTV ranking's rows are held (not still loading)
 * and every small view is held, so the first reads neither wait for nor pay for the load.
 * An app over a warehouse not built yet still starts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildAnalyticsApp } from '../../src/app.js';
import { READS } from '../../src/sales/catalog.js';
import { heldRanking } from '../../src/sales/range-read.js';
import { readView } from '../../src/sales/read-view.js';
import { createWarehouse } from '../../src/warehouse/warehouse.js';
import {
  createWarehouseFixture,
  recordingQueries,
  silentLogger,
  type WarehouseFixture,
} from '../helpers/warehouse-fixture.js';
import { ORDERS } from '../helpers/hand-made-data.js';

describe('serving data loaded before the app answers', () => {
  let fixture: WarehouseFixture;

  before(async () => {
    fixture = await createWarehouseFixture();
  });
  after(async () => fixture.cleanup());

  it('holds the ranking and the small views once the app is built', async () => {
    const warehouse = createWarehouse({ file: fixture.file });
    const sql: string[] = [];
    const counting = recordingQueries(warehouse, sql);
    const app = await buildAnalyticsApp({ warehouse: counting, logger: silentLogger() });
    try {
      // Loaded lazily, the first call only starts the load and `rows` is still unset.
      const held = await heldRanking(warehouse, READS.top_customers, 1);
      assert.ok(held.value.rows && held.value.rows.length > 0, 'ranking rows held');
      const loads = sql.length;
      for (const name of ['sales_summary', 'monthly_trends', 'yoy_growth'] as const)
        await readView(counting, name);
      await readView(counting, 'top_customers', { decile: 1, limit: 2 });
      assert.deepEqual(sql.slice(loads), [], 'reads after the build ran no query');
    } finally {
      await app.close();
      await warehouse.close();
    }
  });

  it('starts over a warehouse not built yet', async () => {
    const warehouse = createWarehouse({ file: `${fixture.dataDir}/absent.duckdb` });
    const app = await buildAnalyticsApp({ warehouse, logger: silentLogger() });
    const response = await app.inject({ url: '/api/v1/sales/kpis' });
    assert.equal(response.statusCode, 503);
    await app.close();
    await warehouse.close();
  });
});

describe('serving data of a rebuild loaded before it serves', () => {
  let fixture: WarehouseFixture;

  before(async () => {
    fixture = await createWarehouseFixture();
  });
  after(async () => fixture.cleanup());

  it('the first read that sees the new build finds its ranking and small views held', async () => {
    const warehouse = createWarehouse({ file: fixture.file });
    const sql: string[] = [];
    const counting = recordingQueries(warehouse, sql);
    const app = await buildAnalyticsApp({ warehouse: counting, logger: silentLogger() });
    try {
      const before = await warehouse.currentBuild();
      await fixture.build({
        items: [['o99', '1', 'p1', '100.00', '1.00']],
        orders: [...ORDERS, ['o99', 'c1', '2019-09-09 09:09:09']],
      });
      // The switch to the new build: the first call that sees it.
      const build = await warehouse.currentBuild();
      assert.notEqual(build.id, before.id);
      // Loaded lazily, this call would only start the load (`rows` unset).
      const held = await heldRanking(warehouse, READS.top_customers, 1);
      assert.equal(held.build.id, build.id);
      assert.ok(held.value.rows && held.value.rows.length > 0, 'ranking rows held');
      const loads = sql.length;
      for (const name of ['sales_summary', 'monthly_trends', 'yoy_growth'] as const) {
        const page = await readView(counting, name);
        assert.equal(page.meta.build_id, build.id);
      }
      await readView(counting, 'top_customers', { decile: 1, limit: 2 });
      assert.deepEqual(sql.slice(loads), [], 'reads of the new build ran no query');
    } finally {
      await app.close();
      await warehouse.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWarehouseFixture, type WarehouseFixture } from '../helpers/warehouse-fixture.js';

describe('warehouse result cache', () => {
  let fixture: WarehouseFixture;
  before(async () => {
    fixture = await createWarehouseFixture();
  });
  after(async () => fixture.cleanup());

  const twice = async (sql: string) => [
    await fixture.warehouse.query(sql),
    await fixture.warehouse.query(sql),
  ];

  it('answers a repeated query from the cache', async () => {
    const [first, second] = await twice('SELECT * FROM raw_data.gold.vw_executive_kpis');
    assert.equal(second, first);
  });

  it('does not keep a result of a few rows holding megabytes', async () => {
    for (const sql of [
      "SELECT repeat('x', 2000000) AS s",
      "SELECT [repeat('x', 600000), repeat('y', 600000)] AS l",
    ]) {
      const [first, second] = await twice(sql);
      assert.notEqual(second, first, sql);
      assert.deepEqual(second, first, sql);
    }
  });
});

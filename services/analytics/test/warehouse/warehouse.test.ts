import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWarehouse } from '../../src/warehouse/warehouse.js';
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
  it('runs queries within the memory and spill limits it was given (locked: a query cannot raise them)', async () => {
    const limited = createWarehouse({
      file: fixture.file,
      memoryLimit: '96MB',
      spillLimit: '48MB',
      cacheEntries: 0,
    });
    try {
      const { rows } = await limited.query(
        "SELECT current_setting('memory_limit') AS memory, current_setting('max_temp_directory_size') AS spill",
      );
      assert.match(String(rows[0]!.memory), /^9[0-9](\.\d)? MiB$/);
      assert.match(String(rows[0]!.spill), /^4[0-9](\.\d)? MiB$/);
      await assert.rejects(
        limited.query("SET max_temp_directory_size = '100GB'"),
        /lock|configuration/i,
      );
    } finally {
      await limited.close();
    }
  });
});

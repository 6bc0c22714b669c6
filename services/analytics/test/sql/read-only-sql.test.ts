import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCounterStore, createRateLimiter, isAppError } from '@platform/core';
import { waitFor } from '@platform/testing';
import { createSqlGate, runReadOnlySql } from '../../src/sql/read-only-sql.js';
import { createWarehouseFixture, type WarehouseFixture } from '../helpers/warehouse-fixture.js';

describe('read-only SQL guard', () => {
  let fixture: WarehouseFixture;
  before(async () => {
    fixture = await createWarehouseFixture();
  });
  after(async () => fixture.cleanup());

  const rejected = async (
    sql: string,
    code: string | string[],
    detail?: RegExp,
    timeoutMs = 5000,
  ) => {
    await assert.rejects(
      runReadOnlySql(fixture.warehouse, sql, { timeoutMs }),
      (error: unknown) => {
        assert.ok(isAppError(error), `${sql}: ${String(error)}`);
        assert.ok([code].flat().includes(error.code), `${sql}: ${error.code}`);
        if (detail) assert.match(error.detail, detail, sql);
        return true;
      },
    );
  };

  it('runs one SELECT and returns typed rows', async () => {
    const out = await runReadOnlySql(
      fixture.warehouse,
      'SELECT count(*) AS n, sum(sales_amount) AS revenue FROM raw_data.gold.fact_sales',
    );
    assert.deepEqual(out.columns, ['n', 'revenue']);
    assert.equal(typeof out.rows[0]!.n, 'number');
    assert.equal(out.truncated, false);
  });

  it('accepts WITH … SELECT, set operations, comments around a SELECT, and FROM-first syntax', async () => {
    for (const sql of [
      'WITH t AS (SELECT 1 AS a) SELECT a FROM t',
      'SELECT 1 UNION ALL SELECT 2',
      '/* leading comment */ SELECT 1',
      '-- a line comment\nSELECT 1 -- trailing',
      'FROM raw_data.gold.vw_yoy_growth',
    ]) {
      const out = await runReadOnlySql(fixture.warehouse, sql);
      assert.ok(out.rows.length >= 1, sql);
    }
  });

  it('caps the rows and says so', async () => {
    const out = await runReadOnlySql(fixture.warehouse, 'SELECT * FROM range(100000)', {
      maxRows: 7,
    });
    assert.equal(out.rows.length, 7);
    assert.equal(out.truncated, true);
  });

  it('stops a query at its time limit', async () => {
    const started = performance.now();
    await rejected(
      'SELECT count(*) FROM range(1000000000000) a',
      'QUERY_TIMEOUT',
      /did not finish/,
      300,
    );
    assert.ok(performance.now() - started < 3000);
  });

  it('rejects writes, including a DELETE behind a WITH', async () => {
    await rejected(
      'WITH x AS (SELECT 1) DELETE FROM raw_data.gold.fact_sales',
      'SQL_REJECTED',
      /found DELETE/,
    );
    await rejected('DELETE FROM raw_data.gold.fact_sales', 'SQL_REJECTED');
    await rejected(
      'INSERT INTO raw_data.gold.dim_date SELECT * FROM raw_data.gold.dim_date',
      'SQL_REJECTED',
    );
    await rejected('UPDATE raw_data.gold.fact_sales SET sales_amount = 0', 'SQL_REJECTED');
    await rejected('CREATE TABLE t AS SELECT 1', 'SQL_REJECTED');
    await rejected('DROP VIEW raw_data.gold.vw_yoy_growth', 'SQL_REJECTED');
  });

  it('rejects stacked statements, even when the first is a SELECT or hidden after a comment', async () => {
    await rejected(
      'SELECT 1; DROP TABLE raw_data.gold.fact_sales',
      'SQL_REJECTED',
      /Exactly one statement/,
    );
    await rejected('SELECT 1; SELECT 2', 'SQL_REJECTED', /found 2/);
    await rejected(
      '/* x */ SELECT 1 /* ; */; DELETE FROM raw_data.gold.fact_sales',
      'SQL_REJECTED',
    );
    await rejected(
      '-- SELECT 1\nDELETE FROM raw_data.gold.fact_sales',
      'SQL_REJECTED',
      /found DELETE/,
    );
  });

  it('rejects COPY, ATTACH, PRAGMA, CALL, SET, INSTALL, LOAD, EXPORT, EXPLAIN ANALYZE', async () => {
    const out = join(fixture.dataDir, 'stolen.csv');
    await rejected(`COPY raw_data.gold.fact_sales TO '${out}'`, 'SQL_REJECTED');
    await rejected(`COPY (SELECT 1) TO '${out}' (FORMAT csv)`, 'SQL_REJECTED');
    await rejected(`ATTACH '${join(fixture.dataDir, 'x.duckdb')}' AS x`, 'SQL_REJECTED');
    await rejected('PRAGMA version', 'SQL_REJECTED');
    await rejected('PRAGMA database_list', 'SQL_REJECTED');
    await rejected('CALL pragma_version()', 'SQL_REJECTED');
    await rejected('SET enable_external_access = true', 'SQL_REJECTED');
    await rejected('INSTALL httpfs', 'SQL_REJECTED');
    await rejected('LOAD httpfs', 'SQL_REJECTED');
    await rejected(`EXPORT DATABASE '${fixture.dataDir}/export'`, 'SQL_REJECTED');
    await rejected('EXPLAIN ANALYZE SELECT 1', 'SQL_REJECTED');
    assert.equal(existsSync(out), false);
  });

  // DuckDB refuses these when it binds the statement (rejected) or runs it (failed).
  const refused = ['SQL_REJECTED', 'SQL_FAILED'];
  it('blocks file reads and writes from inside a SELECT', async () => {
    await rejected(
      "SELECT * FROM read_csv('/etc/passwd')",
      refused,
      /Permission|disabled|not allowed/,
    );
    await rejected(
      "SELECT * FROM read_text('/etc/hostname')",
      refused,
      /Permission|disabled|not allowed/,
    );
    await rejected("SELECT * FROM read_blob('/etc/hostname')", refused);
    await rejected("SELECT * FROM glob('/etc/*')", refused);
    await rejected("SELECT * FROM '/etc/passwd'", refused);
    await rejected(
      `SELECT * FROM read_csv_auto('${fixture.dataDir}/source/olist_orders_dataset.csv')`,
      refused,
    );
    await rejected("SELECT * FROM read_parquet('https://example.com/x.parquet')", refused);
    await rejected("SELECT * FROM read_json('/etc/passwd')", refused);
    await rejected("SELECT * FROM sniff_csv('/etc/passwd')", refused);
    await rejected("SELECT * FROM query('DELETE FROM raw_data.gold.fact_sales')", refused);
  });

  it('rejects empty, unparsable and oversized input', async () => {
    await rejected('   ', 'SQL_REJECTED', /empty/);
    await rejected('SELEC 1', 'SQL_REJECTED', /rejected/);
    await rejected(`SELECT ${'1+'.repeat(6000)}1`, 'SQL_REJECTED', /longer than/);
  });

  it('reads only the gold schema: no system tables, settings, other schemas or file functions', async () => {
    // Names the engine knows: refused by the gold rule itself.
    for (const sql of [
      'SELECT * FROM duckdb_settings()',
      'SELECT * FROM duckdb_tables',
      'SELECT * FROM information_schema.tables',
      'SELECT (SELECT count(*) FROM duckdb_functions()) AS n',
      'WITH t AS (SELECT 1) SELECT * FROM t, duckdb_views',
    ]) {
      await rejected(sql, 'SQL_REJECTED', /not allowed/);
    }
    // Names it does not know are refused by its binder before.
    await rejected('SELECT * FROM raw_data.main.anything', 'SQL_REJECTED', /does not exist/);
    for (const sql of [
      'SELECT count(*) FROM gold.fact_sales',
      'WITH recent AS (SELECT * FROM raw_data.gold.fact_sales) SELECT count(*) FROM recent',
      'SELECT * FROM generate_series(1, 3)',
      'SELECT unnest([1, 2])',
    ]) {
      const out = await runReadOnlySql(fixture.warehouse, sql);
      assert.ok(out.rows.length >= 1, sql);
    }
  });

  it('caps the answer in bytes as well as rows', async () => {
    const out = await runReadOnlySql(
      fixture.warehouse,
      "SELECT repeat('x', 1000) AS wide FROM range(100)",
      { maxBytes: 10_000 },
    );
    assert.ok(out.rows.length < 10, `${out.rows.length} rows of 1 kB under a 10 kB cap`);
    assert.ok(out.rows.length > 0);
    assert.equal(out.truncated, true);
  });

  it('never answers from the result cache: random() is drawn anew', async () => {
    const draw = async () =>
      (await runReadOnlySql(fixture.warehouse, 'SELECT random() AS r')).rows[0]!.r;
    assert.notEqual(await draw(), await draw());
  });

  it('runs at most the gate’s number of queries at once, refusing one more', async () => {
    const gate = createSqlGate({ maxConcurrent: 1 });
    let release!: () => void;
    const first = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    await assert.rejects(
      gate.run(async () => 'second'),
      (error: unknown) => {
        assert.ok(isAppError(error));
        assert.equal(error.code, 'SQL_BUSY');
        assert.equal(error.statusCode, 503);
        return true;
      },
    );
    release();
    await first;
    assert.equal(await gate.run(async () => 'after'), 'after');
  });

  it('bounds each client: at once (another client still runs) and per window (the core rate limiter)', async () => {
    const store = createCounterStore({ now: () => 1_000_000 }); // pinned: no window ends mid-test
    const gate = createSqlGate({
      maxConcurrent: 3,
      maxPerClient: 1,
      limiter: createRateLimiter(store, { limit: 3, windowSeconds: 60, name: 'sql-test' }),
    });
    const code = (expected: string, status: number) => (error: unknown) => {
      assert.ok(isAppError(error));
      assert.equal(error.code, expected);
      assert.equal(error.statusCode, status);
      return true;
    };
    let release!: () => void;
    const held = gate.run(() => new Promise<void>((resolve) => (release = resolve)), 'key:a');
    await assert.rejects(
      gate.run(async () => 'a again', 'key:a'),
      code('SQL_BUSY', 503),
    );
    assert.equal(await gate.run(async () => 'b', 'key:b'), 'b', 'another client is not held up');
    assert.equal(await gate.run(async () => 'agent'), 'agent', 'no client: only the process bound');
    release();
    await held;
    // a: 1 ran, 1 refused while busy (not counted: refused before the limiter); 2 more fit in the window.
    assert.equal(await gate.run(async () => 2, 'key:a'), 2);
    assert.equal(await gate.run(async () => 3, 'key:a'), 3);
    await assert.rejects(
      gate.run(async () => 4, 'key:a'),
      (error: unknown) => {
        code('SQL_RATE_LIMITED', 429)(error);
        assert.match((error as Error & { detail: string }).detail, /at most 3 per client/);
        return true;
      },
    );
    assert.equal(await gate.run(async () => 'b2', 'key:b'), 'b2', 'b has its own window');
    // A refused query leaves no slot taken: the process bound still admits three at once.
    const releases: Array<() => void> = [];
    const three = ['key:c', 'key:d', 'key:e'].map((client) =>
      gate.run(() => new Promise<void>((resolve) => releases.push(resolve)), client),
    );
    await waitFor('three queries admitted', () => releases.length === 3, 1000);
    await assert.rejects(
      gate.run(async () => 'f', 'key:f'),
      code('SQL_BUSY', 503),
    );
    for (const r of releases) r();
    await Promise.all(three);
  });

  it('reports a failing SELECT without internals', async () => {
    await rejected('SELECT * FROM raw_data.gold.no_such_table', refused, /no_such_table/);
    await rejected("SELECT error('boom') FROM raw_data.gold.fact_sales", refused, /boom/);
  });
});

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OLIST_FILES } from '../../src/olist-format.js';
import { PipelineError } from '../../src/pipeline/pipeline-error.js';
import { assertQuality, checkQuality } from '../../src/pipeline/quality.js';
import { runPipeline, type StatementReport } from '../../src/pipeline/run-pipeline.js';
import { openDuckDb, type DuckDbSession } from '../../src/warehouse/duckdb-session.js';
import { warehousePath } from '../../src/warehouse/paths.js';
import { ITEMS, ORDERS, writeHandMadeData } from '../helpers/hand-made-data.js';

const GOLD_TABLES = ['dim_customer', 'dim_product', 'dim_date', 'fact_sales'];

async function snapshot(file: string): Promise<Record<string, unknown[]>> {
  const db = await openDuckDb(file, { readOnly: true });
  try {
    const tables: Record<string, unknown[]> = {};
    for (const table of GOLD_TABLES) {
      const columns = table === 'dim_date' ? '*' : '* EXCLUDE (updated_at)';
      tables[table] = await db.all(`SELECT ${columns} FROM gold.${table} ORDER BY ALL`);
    }
    return tables;
  } finally {
    db.close();
  }
}

describe('pipeline', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analytics-pipeline-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('running twice gives the same gold tables (MERGE updates, never duplicates)', async () => {
    const source = join(dir, 'twice');
    await writeHandMadeData(source);
    const file = warehousePath(join(dir, 'twice-data'));
    await mkdir(join(dir, 'twice-data', 'analytics'), { recursive: true });
    const first = await runPipeline({ sourceDir: source, warehouseFile: file });
    const once = await snapshot(file);
    const second = await runPipeline({ sourceDir: source, warehouseFile: file });
    const twice = await snapshot(file);
    assert.deepEqual(twice, once);
    assert.ok(first.facts.inserted > 0);
    assert.deepEqual(second.facts, { inserted: 0, updated: 0, unchanged: first.facts.inserted });
    assert.deepEqual(
      readdirSync(join(dir, 'twice-data', 'analytics')),
      ['raw_data.duckdb'],
      'no scratch files left',
    );
  });

  it('an incremental batch updates changed items and adds new ones, keeping earlier batches', async () => {
    const source = join(dir, 'incremental');
    await writeHandMadeData(source);
    await mkdir(join(dir, 'inc-data', 'analytics'), { recursive: true });
    const file = warehousePath(join(dir, 'inc-data'));
    await runPipeline({ sourceDir: source, warehouseFile: file });
    const before = await snapshot(file);
    // Batch 2: only o10 (price corrected) and a new order o13.
    const batch = join(dir, 'batch2');
    await writeHandMadeData(
      batch,
      [
        ['o10', '1', 'p4', '810.00', '250.75'],
        ['o13', '1', 'p6', '99.99', '9.99'],
      ],
      [...ORDERS, ['o13', 'c1', '2019-07-01 10:00:00']],
    );
    const result = await runPipeline({ sourceDir: batch, warehouseFile: file });
    assert.deepEqual(result.facts, { inserted: 1, updated: 1, unchanged: 0 });
    const afterRun = await snapshot(file);
    assert.equal(afterRun.fact_sales!.length, before.fact_sales!.length + 1);
    const db = await openDuckDb(file, { readOnly: true });
    try {
      const rows = await db.all(
        "SELECT order_id, sales_amount FROM gold.fact_sales WHERE order_id IN ('o10', 'o13', 'o2') ORDER BY ALL",
      );
      assert.deepEqual(rows, [
        { order_id: 'o10', sales_amount: 810 },
        { order_id: 'o13', sales_amount: 99.99 },
        { order_id: 'o2', sales_amount: 250.5 },
        { order_id: 'o2', sales_amount: 500 },
      ]);
    } finally {
      db.close();
    }
  });

  it('a missing source file is an error naming it, and leaves no warehouse behind', async () => {
    const source = join(dir, 'missing-file');
    await writeHandMadeData(source);
    await rm(join(source, OLIST_FILES.products.file));
    const file = join(dir, 'missing-file-out', 'raw_data.duckdb');
    await mkdir(join(dir, 'missing-file-out'));
    await assert.rejects(
      runPipeline({ sourceDir: source, warehouseFile: file }),
      (error: Error) => {
        assert.ok(error instanceof PipelineError);
        assert.match(error.message, /missing source file: olist_products_dataset\.csv/);
        return true;
      },
    );
    assert.equal(existsSync(file), false);
  });

  it('a missing column is an error naming the file and the column', async () => {
    const source = join(dir, 'missing-column');
    await writeHandMadeData(source);
    const path = join(source, OLIST_FILES.orderItems.file);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('freight_value', 'freight'));
    await mkdir(join(dir, 'mc-out'));
    await assert.rejects(
      runPipeline({ sourceDir: source, warehouseFile: join(dir, 'mc-out', 'raw_data.duckdb') }),
      /olist_order_items_dataset\.csv: missing column freight_value/,
    );
  });

  it('a file that is not valid CSV is an error naming it, not a DuckDB crash', async () => {
    const source = join(dir, 'bad-csv');
    await writeHandMadeData(source);
    const path = join(source, OLIST_FILES.orderItems.file);
    const header = (await readFile(path, 'utf8')).split('\n')[0];
    await mkdir(join(dir, 'bad-csv-out'));
    const file = join(dir, 'bad-csv-out', 'raw_data.duckdb');
    const row = 'o1,1,p1,s1,2017-01-01 00:00:00,1.00,2.00\n';
    // A broken quote fails the sniffing; a bad row deep in the file fails the load.
    for (const body of [`"${row}`, `${row.repeat(3000)}o2,1,p1,s1,x,1.00,2.00,extra\n`]) {
      await writeFile(path, `${header}\n${body}`);
      await assert.rejects(
        runPipeline({ sourceDir: source, warehouseFile: file }),
        (error: Error) => {
          assert.ok(error instanceof PipelineError, String(error));
          assert.match(error.message, /^olist_order_items_dataset\.csv: not readable as CSV: /);
          assert.doesNotMatch(error.message, /\n/);
          return true;
        },
      );
    }
    assert.equal(existsSync(file), false);
  });

  it('quality checks report duplicates and orphans and stop the build', async () => {
    const source = join(dir, 'quality');
    await writeHandMadeData(source);
    await mkdir(join(dir, 'q-out'));
    const file = join(dir, 'q-out', 'raw_data.duckdb');
    await runPipeline({ sourceDir: source, warehouseFile: file });
    const db: DuckDbSession = await openDuckDb(file);
    try {
      assert.equal((await checkQuality(db)).passed, true);
      await db.exec(
        "INSERT INTO gold.fact_sales SELECT * REPLACE ('nobody' AS customer_sk) FROM gold.fact_sales WHERE order_id = 'o9'",
      );
      const report = await checkQuality(db);
      assert.equal(report.passed, false);
      const failed = report.checks.filter((c) => !c.passed).map((c) => c.name);
      assert.ok(failed.includes('fact_sales (order_id, order_item_id) is unique'));
      assert.ok(failed.includes('fact_sales.customer_sk has a dim_customer row'));
      assert.throws(
        () => assertQuality(report),
        (error: PipelineError) => {
          assert.match(error.message, /quality checks failed: .*is unique \(1\)/);
          assert.deepEqual(error.report, report);
          return true;
        },
      );
    } finally {
      db.close();
    }
  });

  it('a second build while one runs is refused, and a stale lock is taken over', async () => {
    const source = join(dir, 'lock');
    await writeHandMadeData(source);
    await mkdir(join(dir, 'lock-out'));
    const file = join(dir, 'lock-out', 'raw_data.duckdb');
    const results = await Promise.allSettled([
      runPipeline({ sourceDir: source, warehouseFile: file }),
      runPipeline({ sourceDir: source, warehouseFile: file }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.match(String(refused.reason), /another build is running/);
    await writeFile(join(dir, 'lock-out', '.build.lock'), '999999999');
    await runPipeline({ sourceDir: source, warehouseFile: file });
    assert.equal(existsSync(join(dir, 'lock-out', '.build.lock')), false);
    // Left by an earlier process with this pid, as in a container restarted after a crash.
    await writeFile(join(dir, 'lock-out', '.build.lock'), String(process.pid));
    await runPipeline({ sourceDir: source, warehouseFile: file });
    assert.equal(existsSync(join(dir, 'lock-out', '.build.lock')), false);
  });

  it('a build removes the scratch copies that builds killed mid-way left beside the warehouse', async () => {
    const source = join(dir, 'leftover');
    await writeHandMadeData(source);
    const out = join(dir, 'leftover-out');
    // As a build killed with SIGKILL leaves it: its copy of the warehouse and a spill folder.
    await mkdir(join(out, '.build-killed', 'spill'), { recursive: true });
    await writeFile(join(out, '.build-killed', 'raw_data.duckdb'), 'half a copy');
    await runPipeline({ sourceDir: source, warehouseFile: join(out, 'raw_data.duckdb') });
    assert.deepEqual(readdirSync(out).sort(), ['raw_data.duckdb']);
  });

  it('reads files that start with a UTF-8 byte order mark, as the published translation file does', async () => {
    const source = join(dir, 'bom');
    await writeHandMadeData(source);
    const path = join(source, OLIST_FILES.categoryTranslation.file);
    await writeFile(path, `\ufeff${await readFile(path, 'utf8')}`);
    await mkdir(join(dir, 'bom-out'));
    const file = join(dir, 'bom-out', 'raw_data.duckdb');
    await runPipeline({ sourceDir: source, warehouseFile: file });
    const db = await openDuckDb(file, { readOnly: true });
    try {
      const rows = await db.all(
        "SELECT DISTINCT product_category_name FROM gold.dim_product WHERE product_id = 'p1'",
      );
      assert.deepEqual(rows, [{ product_category_name: 'bed_bath_table' }]);
    } finally {
      db.close();
    }
  });

  it('reconciles bronze to gold in the report', async () => {
    const source = join(dir, 'recon');
    await writeHandMadeData(source);
    await mkdir(join(dir, 'r-out'));
    const statements: StatementReport[] = [];
    const result = await runPipeline({
      sourceDir: source,
      warehouseFile: join(dir, 'r-out', 'raw_data.duckdb'),
      onStatement: (s) => statements.push(s),
    });
    assert.equal(result.quality.reconciliation.bronze_items, ITEMS.length);
    // The profile (bench/build-profile.ts) sees every statement, timed, up to the commit.
    const first = (prefix: string) => statements.findIndex((s) => s.sql.trim().startsWith(prefix));
    assert.equal(first('BEGIN TRANSACTION'), 0);
    assert.ok(first('CREATE OR REPLACE TEMP TABLE silver_orders') > 0);
    assert.ok(first('COMMIT') > first('CREATE OR REPLACE VIEW'));
    assert.ok(statements.every((s) => s.ms >= 0 && s.cpuMs >= 0));
    assert.deepEqual(
      result.steps.map((s) => s.step),
      ['bronze', 'silver', 'gold', 'quality', 'views'],
    );
    assert.ok(result.steps.every((s) => s.ms >= 0 && Object.keys(s.rows).length > 0));
  });
});

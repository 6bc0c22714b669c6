import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createObjectStore } from '@platform/core';
import { startS3Server } from '@platform/testing';
import { runCli, type CliIo } from '../../src/cli.js';
import { MANIFEST, type ExportManifest } from '../../src/export/export-gold.js';
import { VIEW_NAMES } from '../../src/pipeline/views.js';
import { openDuckDb } from '../../src/warehouse/duckdb-session.js';
import { createWarehouseFixture, type WarehouseFixture } from '../helpers/warehouse-fixture.js';

function captureIo(env: Record<string, string | undefined> = {}) {
  const lines = { out: [] as string[], err: [] as string[] };
  const io: CliIo = {
    out: (line) => lines.out.push(line),
    err: (line) => lines.err.push(line),
    env,
  };
  return { io, lines };
}

/** Rows of a query, as JSON text per row, in order (numbers compared exactly). */
async function rowsOf(db: Awaited<ReturnType<typeof openDuckDb>>, sql: string): Promise<string[]> {
  return (await db.all(sql)).map((row) => JSON.stringify(row));
}

describe('analytics export', () => {
  let fixture: WarehouseFixture;
  let scratch: string;
  before(async () => {
    fixture = await createWarehouseFixture();
    scratch = await mkdtemp(join(tmpdir(), 'analytics-export-test-'));
  });
  after(async () => {
    await fixture.cleanup();
    await rm(scratch, { recursive: true, force: true });
  });

  it('writes every gold table as Parquet, the facts by month, and a manifest; DuckDB reads it back and every view matches', async () => {
    const out = join(scratch, 'lake');
    const { io, lines } = captureIo();
    const code = await runCli(['export', '--to', out, '--data-dir', fixture.dataDir], io);
    assert.equal(code, 0, lines.err.join('\n'));
    const manifest = JSON.parse(await readFile(join(out, MANIFEST), 'utf8')) as ExportManifest;
    assert.equal(manifest.format, 'parquet');
    assert.ok(manifest.build_id);
    const facts = manifest.tables.fact_sales!;
    assert.deepEqual(facts.partitioned_by, ['sales_month']);
    assert.ok(facts.files.length > 1, 'one file or more per month');
    assert.ok(facts.files.every((file) => /^fact_sales\/sales_month=\d{4}-\d{2}\//.test(file)));
    for (const table of Object.values(manifest.tables))
      for (const file of table.files) assert.ok(existsSync(join(out, file)), file);
    assert.deepEqual(Object.keys(manifest.views).sort(), [...VIEW_NAMES].sort());

    // Another engine's view of the export: tables from the files, views from the manifest.
    const lake = await openDuckDb(':memory:');
    const warehouse = await openDuckDb(fixture.file, { readOnly: true });
    try {
      for (const [table, { files, partitioned_by }] of Object.entries(manifest.tables)) {
        const paths = files.map((file) => `'${join(out, file)}'`).join(', ');
        await lake.exec(
          `CREATE VIEW "${table}" AS SELECT * FROM read_parquet([${paths}]${partitioned_by ? ', hive_partitioning = true' : ''})`,
        );
      }
      for (const [view, sql] of Object.entries(manifest.views))
        await lake.exec(`CREATE VIEW ${view} AS ${sql}`);
      for (const view of VIEW_NAMES) {
        assert.deepEqual(
          await rowsOf(lake, `SELECT * FROM ${view}`),
          await rowsOf(warehouse, `SELECT * FROM gold.${view}`),
          view,
        );
      }
      const [exported] = await lake.all<{ n: number; revenue: number }>(
        'SELECT count(*) AS n, sum(sales_amount) AS revenue FROM fact_sales',
      );
      const [original] = await warehouse.all<{ n: number; revenue: number }>(
        'SELECT count(*) AS n, sum(sales_amount) AS revenue FROM gold.fact_sales',
      );
      assert.deepEqual(exported, original);
      assert.equal(exported!.n, facts.rows);
      // The monthly view recomputed from the exported facts alone agrees with the served one.
      assert.deepEqual(
        await rowsOf(
          lake,
          `SELECT sales_month, count(DISTINCT order_id) AS orders FROM fact_sales
           GROUP BY sales_month ORDER BY sales_month DESC`,
        ),
        await rowsOf(
          warehouse,
          `SELECT printf('%04d-%02d', sales_year, sales_month) AS sales_month, total_orders AS orders
           FROM gold.vw_monthly_sales ORDER BY sales_year DESC, sales_month DESC`,
        ),
      );
    } finally {
      lake.close();
      warehouse.close();
    }
    assert.match(lines.out.at(-1)!, /export done/);
  });

  it('exports again over an earlier export, and refuses a folder of other files', async () => {
    const out = join(scratch, 'again');
    const { io } = captureIo();
    assert.equal(await runCli(['export', '--to', out, '--data-dir', fixture.dataDir], io), 0);
    const stale = join(out, 'fact_sales', 'sales_month=1999-01', 'stale.parquet');
    await mkdir(join(out, 'fact_sales', 'sales_month=1999-01'), { recursive: true });
    await writeFile(stale, 'x');
    const manifest = JSON.parse(await readFile(join(out, MANIFEST), 'utf8')) as ExportManifest;
    manifest.tables.fact_sales!.files.push('fact_sales/sales_month=1999-01/stale.parquet');
    await writeFile(join(out, MANIFEST), JSON.stringify(manifest));
    assert.equal(await runCli(['export', '--to', out, '--data-dir', fixture.dataDir], io), 0);
    assert.equal(existsSync(stale), false, 'a file the new manifest no longer names is removed');

    const other = join(scratch, 'someone-elses');
    await mkdir(other);
    await writeFile(join(other, 'notes.txt'), 'keep me');
    const refused = captureIo();
    assert.equal(
      await runCli(['export', '--to', other, '--data-dir', fixture.dataDir], refused.io),
      1,
    );
    assert.match(refused.lines.err.join('\n'), /not empty and holds no manifest\.json/);
    assert.equal(await readFile(join(other, 'notes.txt'), 'utf8'), 'keep me');
  });

  it('answers bad usage and a missing warehouse clearly', async () => {
    const usage = captureIo();
    assert.equal(await runCli(['export'], usage.io), 2);
    assert.match(usage.lines.err.join('\n'), /export needs --to/);
    const scheme = captureIo();
    assert.equal(await runCli(['export', '--to', 'ftp://host/x'], scheme.io), 2);
    assert.match(scheme.lines.err.join('\n'), /folder or s3:\/\/bucket\/prefix/);
    const dots = captureIo();
    assert.equal(await runCli(['export', '--to', 's3://bucket/a/../b'], dots.io), 2);
    assert.match(dots.lines.err.join('\n'), /must not contain \. or \.\. segments/);
    const missing = captureIo();
    const empty = await mkdtemp(join(scratch, 'no-warehouse-'));
    assert.equal(
      await runCli(['export', '--to', join(scratch, 'nowhere'), '--data-dir', empty], missing.io),
      1,
    );
    assert.match(missing.lines.err.join('\n'), /no warehouse at .*run analytics build first/);
  });

  describe('to S3', () => {
    let s3: Awaited<ReturnType<typeof startS3Server>>;
    before(async () => {
      s3 = await startS3Server();
    });
    after(async () => s3.stop());

    it('puts the same files under the prefix, the manifest last', async () => {
      const env = {
        S3_ENDPOINT: s3.endpoint,
        S3_REGION: s3.region,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      };
      const { io, lines } = captureIo(env);
      const code = await runCli(
        ['export', '--to', `s3://${s3.bucket}/gold/v1`, '--data-dir', fixture.dataDir],
        io,
      );
      assert.equal(code, 0, lines.err.join('\n'));
      const store = createObjectStore({
        s3: {
          bucket: s3.bucket,
          endpoint: s3.endpoint,
          region: s3.region,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        },
      });
      try {
        const manifest = JSON.parse(
          (await store.get(`gold/v1/${MANIFEST}`)).toString('utf8'),
        ) as ExportManifest;
        const keys = await store.list('gold/v1/');
        for (const table of Object.values(manifest.tables))
          for (const file of table.files) assert.ok(keys.includes(`gold/v1/${file}`), file);
        const parquet = await store.get('gold/v1/dim_date.parquet');
        assert.equal(parquet.subarray(0, 4).toString(), 'PAR1', 'a Parquet file');
      } finally {
        await store.close();
      }
    });
  });
});

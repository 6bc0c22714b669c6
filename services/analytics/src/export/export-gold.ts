/**
 * `analytics export`: the gold layer as Parquet, for engines other than this service
 * (Spark, Trino, Databricks, DuckDB elsewhere). Every gold table becomes
 * `<table>.parquet` (zstd); the fact table is partitioned by month of purchase,
 * hive-style (`fact_sales/sales_month=2018-01/…`), so engines prune months. A
 * `manifest.json` names the build, each table's files, rows and column types, the
 * partitioning, and each semantic view's SQL over the exported tables.
 *
 * The export is written to a staging folder first; the destination then gets the files,
 * and the manifest last, so a reader that finds a manifest finds every file it names.
 * Files of an earlier export that the new manifest no longer names are removed after it.
 * Destinations: a folder, or `s3://bucket/prefix` (the S3_* settings give endpoint,
 * region and keys, as for the other services' object stores).
 */
import { randomUUID } from 'node:crypto';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import type { ObjectStore } from '@platform/core';
import { VIEW_NAMES } from '../pipeline/views.js';
import { openDuckDb } from '../warehouse/duckdb-session.js';

export const MANIFEST = 'manifest.json';
const FACT_TABLE = 'fact_sales';
const PARTITION_COLUMN = 'sales_month';

export interface ExportedTable {
  /** Files of the table, relative to the export's root, slash-separated. */
  files: string[];
  rows: number;
  columns: Array<{ name: string; type: string }>;
  /** Hive-style partition columns (in the paths, not in the files). */
  partitioned_by?: string[];
}

export interface ExportManifest {
  format: 'parquet';
  build_id: string | null;
  built_at: string | null;
  exported_at: string;
  tables: Record<string, ExportedTable>;
  /** Each semantic view as SQL over the exported tables (named as in `tables`). */
  views: Record<string, string>;
}

/** Where the export goes: a folder, or an object store under a key prefix. */
export type ExportTarget =
  { kind: 'dir'; dir: string } | { kind: 'store'; store: ObjectStore; prefix: string };

export async function exportGold(
  warehouseFile: string,
  target: ExportTarget,
): Promise<ExportManifest> {
  const staging = await mkdtemp(join(tmpdir(), 'analytics-export-'));
  try {
    const manifest = await writeParquet(warehouseFile, staging);
    const files = Object.values(manifest.tables).flatMap((table) => table.files);
    if (target.kind === 'dir') await publishToDir(staging, files, manifest, target.dir);
    else await publishToStore(staging, files, manifest, target.store, target.prefix);
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function writeParquet(warehouseFile: string, staging: string): Promise<ExportManifest> {
  await stat(warehouseFile); // a missing warehouse is an error, not a new empty one
  const db = await openDuckDb(warehouseFile, { readOnly: true });
  try {
    const tables = await db.all<{ table_name: string }>(
      "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'gold' ORDER BY table_name",
    );
    const exported: Record<string, ExportedTable> = {};
    for (const { table_name: table } of tables) {
      const columns = await db.all<{ name: string; type: string }>(
        `SELECT column_name AS name, data_type AS type FROM duckdb_columns()
         WHERE schema_name = 'gold' AND table_name = $1 ORDER BY column_index`,
        [table],
      );
      const [{ rows }] = (await db.all<{ rows: number }>(
        `SELECT count(*) AS rows FROM gold."${table}"`,
      )) as [{ rows: number }];
      if (table === FACT_TABLE) {
        await db.exec(
          `COPY (SELECT *, strftime(order_purchase_timestamp, '%Y-%m') AS ${PARTITION_COLUMN}
                 FROM gold.${FACT_TABLE})
           TO '${sqlPath(join(staging, FACT_TABLE))}'
           (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (${PARTITION_COLUMN}))`,
        );
        exported[table] = {
          files: await listFiles(staging, join(staging, FACT_TABLE)),
          rows,
          columns,
          partitioned_by: [PARTITION_COLUMN],
        };
      } else {
        await db.exec(
          `COPY gold."${table}" TO '${sqlPath(join(staging, `${table}.parquet`))}' (FORMAT parquet, COMPRESSION zstd)`,
        );
        exported[table] = { files: [`${table}.parquet`], rows, columns };
      }
    }
    const views = await db.all<{ view_name: string; sql: string }>(
      "SELECT view_name, sql FROM duckdb_views() WHERE schema_name = 'gold' ORDER BY view_name",
    );
    const build = exported.build_info
      ? (
          await db.all<{ build_id: string; built_at: string }>(
            'SELECT build_id, built_at FROM gold.build_info LIMIT 1',
          )
        )[0]
      : undefined;
    return {
      format: 'parquet',
      build_id: build?.build_id ?? null,
      built_at: build?.built_at ?? null,
      exported_at: new Date().toISOString(),
      tables: exported,
      views: Object.fromEntries(
        views
          .filter((view) => (VIEW_NAMES as readonly string[]).includes(view.view_name))
          .map((view) => [view.view_name, viewSelect(view.sql)]),
      ),
    };
  } finally {
    db.close();
  }
}

/** `CREATE VIEW gold.vw_x AS SELECT … FROM gold.t` → `SELECT … FROM t`. */
function viewSelect(createSql: string): string {
  const select = createSql.replace(/^[\s\S]*?\bAS\s+(?=SELECT\b)/i, '').replace(/;\s*$/, '');
  return select.replace(/\bgold\./gi, '');
}

/** DuckDB's COPY takes its path as a literal: single quotes doubled. */
function sqlPath(path: string): string {
  return path.replaceAll("'", "''");
}

async function listFiles(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

async function previousFiles(read: () => Promise<string>): Promise<string[]> {
  try {
    const manifest = JSON.parse(await read()) as ExportManifest;
    return Object.values(manifest.tables).flatMap((table) => table.files);
  } catch {
    return [];
  }
}

async function publishToDir(
  staging: string,
  files: string[],
  manifest: ExportManifest,
  dir: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const existing = await readdir(dir);
  const earlier = await previousFiles(() => readFile(join(dir, MANIFEST), 'utf8'));
  if (existing.length > 0 && !existing.includes(MANIFEST)) {
    throw new ExportTargetError(
      `${dir} is not empty and holds no ${MANIFEST}: choose an empty folder or an earlier export`,
    );
  }
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await copyFile(join(staging, file), join(dir, file));
  }
  // The manifest last, through a rename, so a reader never sees half of one.
  const temporary = join(dir, `.${MANIFEST}.${randomUUID()}`);
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, join(dir, MANIFEST));
  const kept = new Set(files);
  for (const file of earlier) if (!kept.has(file)) await rm(join(dir, file), { force: true });
}

async function publishToStore(
  staging: string,
  files: string[],
  manifest: ExportManifest,
  store: ObjectStore,
  prefix: string,
): Promise<void> {
  const key = (file: string) => (prefix ? `${prefix}/${file}` : file);
  const earlier = await previousFiles(async () =>
    (await store.get(key(MANIFEST))).toString('utf8'),
  );
  for (const file of files) {
    await store.put(key(file), await readFile(join(staging, file)), {
      contentType: 'application/vnd.apache.parquet',
    });
  }
  await store.put(key(MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
    contentType: 'application/json',
  });
  const kept = new Set(files);
  for (const file of earlier) if (!kept.has(file)) await store.delete(key(file));
}

/** The destination cannot take an export (a folder of other files). */
export class ExportTargetError extends Error {
  override readonly name = 'ExportTargetError';
}

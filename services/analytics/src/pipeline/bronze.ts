/**
 * Bronze: each Olist CSV loaded as published — every column as text, nothing dropped —
 * plus `_row_number` (position in the file), `_source_file` and `_loaded_at`. Bronze
 * holds the latest batch only; history lives in gold. A missing file, a missing column
 * or a file DuckDB cannot read as CSV stops the build with an error naming it.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BRONZE_TABLES, OLIST_FILES, OLIST_TABLES } from '../olist-format.js';
import type { DuckDbSession } from '../warehouse/duckdb-session.js';
import { PipelineError } from './pipeline-error.js';

const CSV_OPTIONS = "header = true, all_varchar = true, delim = ',', quote = '\"', escape = '\"'";

export async function loadBronze(
  db: DuckDbSession,
  sourceDir: string,
  loadedAt: string,
): Promise<Record<string, number>> {
  const dir = resolve(sourceDir);
  for (const table of OLIST_TABLES) {
    const path = join(dir, OLIST_FILES[table].file);
    if (!existsSync(path))
      throw new PipelineError(`missing source file: ${OLIST_FILES[table].file} (looked in ${dir})`);
    const described = await readingCsv(OLIST_FILES[table].file, () =>
      db.all<{ column_name: string }>(`DESCRIBE SELECT * FROM read_csv($1, ${CSV_OPTIONS})`, [
        path,
      ]),
    );
    const present = new Set(described.map((c) => c.column_name));
    const missing = OLIST_FILES[table].columns.filter((column) => !present.has(column));
    if (missing.length > 0) {
      throw new PipelineError(
        `${OLIST_FILES[table].file}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      );
    }
  }
  await db.exec('CREATE SCHEMA IF NOT EXISTS bronze');
  const counts: Record<string, number> = {};
  for (const table of OLIST_TABLES) {
    const { file } = OLIST_FILES[table];
    const name = BRONZE_TABLES[table];
    await readingCsv(file, () =>
      db.exec(
        `CREATE OR REPLACE TABLE bronze.${name} AS
         SELECT *, row_number() OVER () AS _row_number, $2::VARCHAR AS _source_file, $3::TIMESTAMP AS _loaded_at
         FROM read_csv($1, ${CSV_OPTIONS})`,
        [join(dir, file), file, loadedAt],
      ),
    );
    const [row] = await db.all<{ n: number }>(`SELECT count(*) AS n FROM bronze.${name}`);
    counts[`bronze.${name}`] = row!.n;
  }
  return counts;
}

/**
 * DuckDB failing to read a file (not CSV, a broken quote, a row with extra fields) as a
 * `PipelineError` naming the file, with DuckDB's first line.
 */
async function readingCsv<T>(file: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new PipelineError(`${file}: not readable as CSV: ${message.split('\n')[0]}`);
  }
}

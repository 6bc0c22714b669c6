/**
 * Bronze: each Olist CSV file read once — every column declared as text (no type
 * sniffing), no line dropped — into a temporary table `bronze_<table>` of the build's
 * transaction, holding the columns the pipeline uses, each trimmed with blank text as
 * NULL: the one cleaning every later use of a field applied, done here once per field in
 * the CSV reader's parallel scan rather than at each use (the silver filters and
 * selects, the quality checks evaluated it two to three times a field on one thread).
 * A temporary table keeps the file's line order, so its `rowid` is the line position that
 * "the last line wins" de-duplication relies on. Bronze is not persisted: gold keeps the
 * history.
 * Errors: `PipelineError` for a missing file, a missing column, or a file DuckDB cannot
 * read as CSV (broken quote, a row with extra fields), naming the file.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BRONZE_TABLES, OLIST_FILES, OLIST_TABLES, type OlistTable } from '../olist-format.js';
import type { DuckDbSession } from '../warehouse/duckdb-session.js';
import { readCsvHeader } from './csv-header.js';
import { PipelineError } from './pipeline-error.js';

const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;
const sqlName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Temporary table holding one source file. */
export const bronzeTable = (table: OlistTable) => `bronze_${BRONZE_TABLES[table]}`;

export async function loadBronze(
  db: DuckDbSession,
  sourceDir: string,
): Promise<Record<string, number>> {
  const dir = resolve(sourceDir);
  const headers = new Map<OlistTable, string[]>();
  for (const table of OLIST_TABLES) {
    const { file, columns } = OLIST_FILES[table];
    const path = join(dir, file);
    if (!existsSync(path))
      throw new PipelineError(`missing source file: ${file} (looked in ${dir})`);
    const header = await readCsvHeader(path, file);
    const missing = columns.filter((column) => !header.includes(column));
    if (missing.length > 0) {
      throw new PipelineError(
        `${file}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      );
    }
    headers.set(table, header);
  }
  const counts: Record<string, number> = {};
  for (const table of OLIST_TABLES) {
    const { file, columns } = OLIST_FILES[table];
    // Every column of the file, in its order, as text; unnamed ones get a placeholder name.
    const declared = headers
      .get(table)!
      .map((name, i) => `${sqlString(name || `_column_${i}`)}: 'VARCHAR'`)
      .join(', ');
    const options = [
      'header = true',
      'auto_detect = false',
      `columns = {${declared}}`,
      "delim = ','",
      "quote = '\"'",
      "escape = '\"'",
    ].join(', ');
    // Trimmed of Unicode spaces (DuckDB's trim), and blank → NULL.
    const cleaned = columns
      .map((column) => `nullif(trim(${sqlName(column)}), '') AS ${sqlName(column)}`)
      .join(', ');
    await readingCsv(file, () =>
      db.exec(
        `CREATE OR REPLACE TEMP TABLE ${bronzeTable(table)} AS SELECT ${cleaned} FROM read_csv($1, ${options})`,
        [join(dir, file)],
      ),
    );
    const [row] = await db.all<{ n: number }>(`SELECT count(*) AS n FROM ${bronzeTable(table)}`);
    counts[`bronze.${BRONZE_TABLES[table]}`] = row!.n;
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

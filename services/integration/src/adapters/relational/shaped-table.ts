/** Shaped tables: reading a table's columns, and the start-up check of the interns table (spec 2.6). */
import type { SqlExecutor } from '@platform/core';

/** Columns of `table` in `schema` (the current schema when undefined). */
export async function tableColumns(
  db: SqlExecutor,
  table: string,
  schema?: string,
): Promise<Map<string, string>> {
  const { rows } = await db.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_schema = coalesce($2, current_schema()) AND table_name = $1`,
    [table, schema ?? null],
  );
  return new Map(rows.map((row) => [row.column_name, row.data_type]));
}

/** Columns the shaped interns table must have, with their types. */
export const INTERNS_TABLE_COLUMNS: Record<string, string> = {
  record_id: 'uuid',
  intern_id: 'text',
  first_name: 'text',
  last_name: 'text',
  email: 'text',
  college: 'text',
  department: 'text',
  mentor: 'text',
  start_date: 'date',
  status: 'text',
  created_at: 'timestamp with time zone',
};

/** Throws naming every missing or mistyped column. */
export async function validateInternsTable(db: SqlExecutor): Promise<void> {
  const actual = await tableColumns(db, 'interns');
  const problems = Object.entries(INTERNS_TABLE_COLUMNS)
    .filter(([column, type]) => actual.get(column) !== type)
    .map(
      ([column, type]) =>
        `${column} (${type}) ${actual.has(column) ? `is ${actual.get(column)}` : 'is missing'}`,
    );
  if (problems.length > 0)
    throw new Error(
      `shaped table interns does not match the interns contract: ${problems.join('; ')}`,
    );
}

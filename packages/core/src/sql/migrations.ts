/**
 * Versioned migrations per service, applied at start-up.
 *
 * Reads `NNN_name.sql` files from a folder (or takes them as a list), and applies those
 * not yet recorded in `schema_migrations` for that service, each in its own transaction,
 * in version order. An advisory lock serialises instances starting at once.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlDatabase } from './sql-database.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE_PATTERN = /^(\d+)_([a-z0-9_-]+)\.sql$/i;

export function loadMigrations(dir: string): Migration[] {
  const migrations = readdirSync(dir)
    .map((file) => ({ file, match: FILE_PATTERN.exec(file) }))
    .filter((entry): entry is { file: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ file, match }) => ({
      version: Number(match[1]),
      name: match[2]!,
      sql: readFileSync(join(dir, file), 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
  const versions = new Set(migrations.map((m) => m.version));
  if (versions.size !== migrations.length)
    throw new Error(`duplicate migration versions in ${dir}`);
  return migrations;
}

/** Applies pending migrations; returns the versions applied now. */
export async function runMigrations(
  db: SqlDatabase,
  service: string,
  migrations: Migration[],
): Promise<number[]> {
  // Under a lock of its own: services starting at once on a fresh database would race on
  // `IF NOT EXISTS` (PostgreSQL then fails one with a duplicate key in its catalog).
  await db.withAdvisoryLock('schema_migrations', (tx) =>
    tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      service text NOT NULL,
      version integer NOT NULL,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (service, version)
    )`),
  );
  return db.withAdvisoryLock(`migrations:${service}`, async (tx) => {
    const { rows } = await tx.query<{ version: number }>(
      'SELECT version FROM schema_migrations WHERE service = $1',
      [service],
    );
    const done = new Set(rows.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      // Statements run one by one: PGlite's extended protocol takes a single statement.
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (service, version, name) VALUES ($1, $2, $3)', [
        service,
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/**
 * Splits a migration into statements at top-level semicolons, leaving semicolons inside
 * quotes, dollar-quoted bodies and comments alone.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    const dollar = /^\$[A-Za-z_]*\$/.exec(rest);
    if (dollar) {
      const end = sql.indexOf(dollar[0], i + dollar[0].length);
      const stop = end === -1 ? sql.length : end + dollar[0].length;
      current += sql.slice(i, stop);
      i = stop;
    } else if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (sql[i] === "'" || sql[i] === '"') {
      const quote = sql[i]!;
      let j = i + 1;
      while (j < sql.length && !(sql[j] === quote && sql[j + 1] !== quote))
        j += sql[j] === quote ? 2 : 1;
      current += sql.slice(i, j + 1);
      i = j + 1;
    } else if (sql[i] === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
      i += 1;
    } else {
      current += sql[i];
      i += 1;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

/** The render service's versioned SQL migrations (`migrations/NNN_name.sql`). */
import { fileURLToPath } from 'node:url';
import { loadMigrations, runMigrations, type SqlDatabase } from '@platform/core';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

export async function migrateRenderDatabase(db: SqlDatabase): Promise<number[]> {
  return runMigrations(db, 'render', loadMigrations(MIGRATIONS_DIR));
}

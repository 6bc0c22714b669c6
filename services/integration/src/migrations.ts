/** Applies the integration platform's migrations (registry, read model, dead letters). */
import { fileURLToPath } from 'node:url';
import { loadMigrations, runMigrations, type SqlDatabase } from '@platform/core';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

export async function migrateIntegration(db: SqlDatabase): Promise<number[]> {
  return runMigrations(db, 'integration', loadMigrations(MIGRATIONS_DIR));
}

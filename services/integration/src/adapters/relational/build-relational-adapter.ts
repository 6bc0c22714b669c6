/**
 * The relational adapter: consumer group `adapter.relational`, target tables in the SQL
 * database it is given (in `npm start` the service's own handle; in production its own
 * `DATABASE_URL`). Its migrations run here; the shaped interns table is validated at start.
 */
import { fileURLToPath } from 'node:url';
import { loadMigrations, runMigrations, type SqlDatabase } from '@platform/core';
import { buildAdapter, type Adapter, type AdapterDeps } from '../runtime/build-adapter.js';
import { createRelationalTarget } from './relational-target.js';
import { allowedTables } from './target-table.js';

export const RELATIONAL_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

export interface RelationalAdapterDeps extends AdapterDeps {
  /** Database holding the target tables. */
  db: SqlDatabase;
  /** Tables of the current schema attachments may write besides records and interns (`RELATIONAL_ALLOWED_TABLES`). @defaultValue none */
  allowedTables?: readonly string[];
}

export async function buildRelationalAdapter(deps: RelationalAdapterDeps): Promise<Adapter> {
  await runMigrations(
    deps.db,
    'integration-relational-adapter',
    loadMigrations(RELATIONAL_MIGRATIONS_DIR),
  );
  const target = createRelationalTarget(deps.db, { allowed: allowedTables(deps.allowedTables) });
  return buildAdapter({ ...deps, target });
}

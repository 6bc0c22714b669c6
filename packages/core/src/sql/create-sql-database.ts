/** Picks the SQL engine from configuration: PostgreSQL when a URL is given, else PGlite. */
import type { Logger } from 'pino';
import { createPgliteDatabase } from './pglite/pglite-database.js';
import { createPgliteThreadDatabase } from './pglite/pglite-thread-database.js';
import { createPostgresDatabase } from './postgres/postgres-database.js';
import type { SqlDatabase } from './sql-database.js';

export interface SqlDatabaseOptions {
  /** `postgres://…`; when absent the embedded PGlite engine is used. */
  url?: string | undefined;
  /** PGlite's folder (or `memory://`), used only without `url`. */
  dataDir: string;
  /** PGlite on a worker thread of its own (`pglite-thread-database.ts`). @defaultValue false */
  thread?: boolean;
  /** @defaultValue 10 */
  poolSize?: number;
  logger?: Logger;
}

export async function createSqlDatabase(options: SqlDatabaseOptions): Promise<SqlDatabase> {
  if (options.url) {
    return createPostgresDatabase({
      connectionString: options.url,
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }
  return options.thread
    ? createPgliteThreadDatabase({
        dataDir: options.dataDir,
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      })
    : createPgliteDatabase({ dataDir: options.dataDir });
}

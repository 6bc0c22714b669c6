/**
 * PGlite driver: PostgreSQL compiled to WASM, running in this process, its files under a
 * folder (or in memory for `memory://`). It has one session, so every transaction runs
 * alone; a query issued on the database object while a transaction is open waits for it.
 * Inside `transaction(fn)` always use the `tx` handed to `fn`, never the database itself,
 * or the call waits for its own transaction.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { ADVISORY_LOCK_SQL, advisoryLockKey, assertChannelName } from '../advisory-key.js';
import { JSON_TYPE_OIDS, parseJsonValue } from '../json-values.js';
import type { QueryResult, SqlDatabase, SqlExecutor } from '../sql-database.js';

export interface PgliteOptions {
  /** Folder for the database files, or `memory://` for a throw-away one. */
  dataDir: string;
}

interface PgliteQueryable {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
}

export async function createPgliteDatabase({ dataDir }: PgliteOptions): Promise<SqlDatabase> {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir, {
    parsers: Object.fromEntries(JSON_TYPE_OIDS.map((oid) => [oid, parseJsonValue])),
  });

  const run = async <R>(target: PgliteQueryable, text: string, params?: readonly unknown[]) => {
    const result = await target.query<R>(text, params as unknown[] | undefined);
    return {
      rows: result.rows,
      rowCount: result.affectedRows || result.rows.length,
    } satisfies QueryResult<R>;
  };
  const transaction = <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> =>
    db.transaction((tx) => fn({ query: (text, params) => run(tx, text, params) }));

  return {
    engine: 'pglite',
    supportsConcurrentSessions: false,
    supportsListenNotify: true,
    query: (text, params) => run(db, text, params),
    transaction,
    withAdvisoryLock: (key, fn) =>
      transaction(async (tx) => {
        await tx.query(ADVISORY_LOCK_SQL, [advisoryLockKey(key)]);
        return fn(tx);
      }),
    async listen(channel, onNotify) {
      assertChannelName(channel);
      const unsubscribe = await db.listen(channel, onNotify);
      return async () => unsubscribe();
    },
    async notify(channel, payload) {
      assertChannelName(channel);
      await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    // One session, which delivers a notification before its next statement: nothing to wait for.
    syncNotifications: async () => 0,
    async ping() {
      await db.query('SELECT 1');
    },
    async close() {
      if (!db.closed) await db.close();
    },
  };
}

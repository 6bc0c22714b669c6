/**
 * PGlite driver: PostgreSQL compiled to WASM, running in this process, its files under a
 * folder (or in memory for `memory://`). It has one session, so every transaction runs
 * alone; a query issued on the database object while a transaction is open waits for it.
 * Inside `transaction(fn)` always use the `tx` handed to `fn`, never the database itself,
 * or the call waits for its own transaction.
 *
 * A full or failing disk (issue 21): PostgreSQL PANICs when it cannot write its WAL, and
 * the PGlite instance that saw it spins forever on its next statement, blocking the whole
 * process (found with fiu-run failing pwrite with ENOSPC). So the first storage failure
 * (SQLSTATE 53100 disk full, 58030 I/O error) retires the instance without another
 * statement (not even close), and the next call opens a new one on the same folder,
 * which replays the WAL: everything committed before is there. Until that succeeds
 * (at most one attempt a second) calls fail with SQLSTATE 57P03 "cannot connect now",
 * which services answer as 503. Calls go to PGlite one at a time through this driver's
 * own queue, so no statement already queued inside the retired instance can reach it.
 * The retired instance is dropped unclosed (closing could spin too) and the GC takes its
 * WASM memory back: two instances 1,031 MB RSS, 476 MB once one was dropped unclosed and
 * collected (2026-11-27 03:21 UTC, 2-core AMD EPYC, load 7.3, a throw-away script). LISTEN
 * subscriptions are made again on the new instance; a NOTIFY sent in between is lost,
 * as on a PostgreSQL reconnect.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { isDiskFailure } from '../../errors/dependency-unavailable.js';
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

const REOPEN_INTERVAL_MS = 1000;

/** The error of a call made while the retired instance's replacement cannot open yet. */
class PgliteReopening extends Error {
  readonly code = '57P03';
  constructor(override readonly cause: unknown) {
    super(
      `PGlite is not queryable: reopening after a storage failure (${
        cause instanceof Error ? cause.message : String(cause)
      })`,
    );
  }
}

interface Subscription {
  channel: string;
  onNotify: (payload: string) => void;
  unsubscribe?: () => Promise<void>;
}

export async function createPgliteDatabase({ dataDir }: PgliteOptions): Promise<SqlDatabase> {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const open = () =>
    PGlite.create(dataDir, {
      parsers: Object.fromEntries(JSON_TYPE_OIDS.map((oid) => [oid, parseJsonValue])),
    });
  let db: PGlite | undefined = await open();
  let failure: unknown;
  let lastAttempt = 0;
  let closed = false;
  const subscriptions = new Set<Subscription>();
  let tail: Promise<unknown> = Promise.resolve();

  const reopen = async (): Promise<PGlite> => {
    if (Date.now() - lastAttempt < REOPEN_INTERVAL_MS) throw new PgliteReopening(failure);
    lastAttempt = Date.now();
    try {
      const fresh = await open();
      for (const subscription of subscriptions)
        subscription.unsubscribe = await fresh.listen(subscription.channel, subscription.onNotify);
      db = fresh;
      failure = undefined;
      return fresh;
    } catch (error) {
      failure = error;
      throw new PgliteReopening(error);
    }
  };

  /** Runs `fn` on the live instance, alone; a storage failure retires the instance. */
  const exclusive = <T>(fn: (instance: PGlite) => Promise<T>): Promise<T> => {
    const result = tail.then(async () => {
      if (closed) throw new Error('PGlite is closed');
      const instance = db ?? (await reopen());
      try {
        return await fn(instance);
      } catch (error) {
        if (db === instance && isDiskFailure(error)) {
          db = undefined;
          failure = error;
          lastAttempt = Date.now();
        }
        throw error;
      }
    });
    tail = result.catch(() => undefined);
    return result;
  };

  const run = async <R>(target: PgliteQueryable, text: string, params?: readonly unknown[]) => {
    const result = await target.query<R>(text, params as unknown[] | undefined);
    return {
      rows: result.rows,
      rowCount: result.affectedRows || result.rows.length,
    } satisfies QueryResult<R>;
  };
  const transaction = <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> =>
    exclusive((instance) =>
      instance.transaction((tx) => fn({ query: (text, params) => run(tx, text, params) })),
    );

  return {
    engine: 'pglite',
    supportsConcurrentSessions: false,
    supportsListenNotify: true,
    query: (text, params) => exclusive((instance) => run(instance, text, params)),
    transaction,
    withAdvisoryLock: (key, fn) =>
      transaction(async (tx) => {
        await tx.query(ADVISORY_LOCK_SQL, [advisoryLockKey(key)]);
        return fn(tx);
      }),
    async listen(channel, onNotify) {
      assertChannelName(channel);
      const subscription: Subscription = { channel, onNotify };
      subscription.unsubscribe = await exclusive((instance) => instance.listen(channel, onNotify));
      subscriptions.add(subscription);
      return async () => {
        subscriptions.delete(subscription);
        if (db) await exclusive(async () => subscription.unsubscribe?.());
      };
    },
    async notify(channel, payload) {
      assertChannelName(channel);
      await exclusive((instance) => instance.query('SELECT pg_notify($1, $2)', [channel, payload]));
    },
    // One session, which delivers a notification before its next statement: nothing to wait for.
    syncNotifications: async () => 0,
    async ping() {
      await exclusive((instance) => instance.query('SELECT 1'));
    },
    async close() {
      await tail;
      closed = true;
      // A retired instance is left alone: any statement, even close, could spin.
      if (db && !db.closed) await db.close();
    },
  };
}

/**
 * PGlite driver: PostgreSQL compiled to WASM, running in this process, its files under a
 * folder (or in memory for `memory://`). It has one session, so every transaction runs
 * alone; a query issued on the database object while a transaction is open waits for it.
 * Inside `transaction(fn)` always use the `tx` handed to `fn`, never the database itself,
 * or the call waits for its own transaction.
 *
 * A full or failing disk (issue 21): PostgreSQL PANICs when it cannot write its WAL, and
 * the PGlite instance that saw it spins forever on its next statement, blocking the whole
 * process (found with fiu-run failing pwrite with ENOSPC; why: panic-guard.ts). PGlite
 * itself sends such a statement within the failing call (a Sync after a failed COMMIT),
 * so the guard refuses every message after a PANIC. The first storage failure
 * (SQLSTATE 53100 disk full, 58030 I/O error) or PANIC retires the instance without another
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
 *
 * Durable commits (issue 21): PGlite never fsyncs, so a call that wrote WAL resolves only
 * after `WalSync` fdatasynced the WAL files it wrote (`wal-sync.ts`); calls that finish
 * while a sync runs share the next one, and the next call runs meanwhile. A failed sync
 * (EIO, ENOSPC) retires the instance like a failed write and fails the call with
 * `WalSyncFailed` (58030 / 53100, a disk failure: 503 upstream). That commit is in doubt:
 * it is in the page cache, so the reopened instance sees it; opening an instance syncs
 * its whole folder first, so what it answers from is durable from then on
 * (unless the kernel dropped the pages with the failed fsync's error: then nothing can
 * tell).
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { isDiskFailure } from '../../errors/dependency-unavailable.js';
import { advisoryLocked, assertChannelName } from '../advisory-key.js';
import { JSON_TYPE_OIDS, parseJsonValue } from '../json-values.js';
import type { QueryResult, SqlDatabase, SqlExecutor } from '../sql-database.js';
import { dropFreshClusterCopy, openMemoryPglite } from './memory-template.js';
import { copyForNewFolder, emptyNewFolder, finishNewFolder } from './new-folder.js';
import { guardPanics, type PanicGuard } from './panic-guard.js';
import { WalSync, type NodeFsInternals } from './wal-sync.js';

export interface PgliteOptions {
  /** Folder for the database files, or `memory://` for a throw-away one. */
  dataDir: string;
  /** Tests only: called with the WAL files of each sync, before it runs. */
  beforeWalSync?: (files: readonly string[]) => Promise<void> | void;
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

type EmscriptenOptions = Parameters<NodeFS['init']>[1];
type PostgresModule = Parameters<NonNullable<EmscriptenOptions['preRun']>[number]>[0];

/** PGlite's NODEFS with every WAL write reported to `wal` (hooked before PostgreSQL starts). */
class WalWatchingNodeFS extends NodeFS {
  constructor(
    dataDir: string,
    private readonly wal: WalSync,
  ) {
    super(dataDir);
  }

  override async init(pg: PGlite, options: EmscriptenOptions) {
    const { emscriptenOpts } = await super.init(pg, options);
    const watch = (mod: PostgresModule) =>
      this.wal.watch((mod as unknown as { NODEFS: NodeFsInternals }).NODEFS);
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), watch] },
    };
  }
}

/** One PGlite instance, the WAL sync of its files (none for `memory://`) and its PANIC guard. */
interface Instance {
  pg: PGlite;
  wal: WalSync | undefined;
  guard: PanicGuard;
}

interface Subscription {
  channel: string;
  onNotify: (payload: string) => void;
  unsubscribe?: () => Promise<void>;
}

export async function createPgliteDatabase({
  dataDir,
  beforeWalSync,
}: PgliteOptions): Promise<SqlDatabase> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const parsers = Object.fromEntries(JSON_TYPE_OIDS.map((oid) => [oid, parseJsonValue]));
  const open = async (): Promise<Instance> => {
    // From a copy of a fresh cluster (memory-template.ts): initdb is most of the cost.
    if (inMemory) {
      const pg = await openMemoryPglite(dataDir, parsers);
      return { pg, wal: undefined, guard: guardPanics(pg) };
    }
    // Each attempt has its own WalSync: it watches the NODEFS of one PGlite module.
    const create = async (loadDataDir?: Blob) => {
      const wal = new WalSync(dataDir, beforeWalSync);
      const fs = new WalWatchingNodeFS(dataDir, wal);
      return { wal, pg: await PGlite.create({ fs, parsers, loadDataDir }) };
    };
    // A new folder from the copy of a fresh cluster (new-folder.ts): initdb is most of
    // the cost of a first start.
    const copy = await copyForNewFolder(dataDir);
    let created: { wal: WalSync; pg: PGlite };
    try {
      created = await create(copy);
    } catch (error) {
      if (!copy) throw error;
      // A copy that does not load (cut short, another build): initdb, as without one.
      await dropFreshClusterCopy();
      await emptyNewFolder(dataDir);
      created = await create();
    }
    const { wal, pg } = created;
    // Without the hook nothing could be synced: refuse rather than acknowledge in the dark.
    if (!wal.watching) {
      await pg.close();
      throw new Error('PGlite: the WAL hook did not attach (NODEFS changed?); refusing to run');
    }
    try {
      await wal.syncDataDir();
      if (copy) await finishNewFolder(dataDir);
    } catch (error) {
      // Dropped unclosed, as a retired instance: its folder cannot take a sync.
      await wal.close();
      throw error;
    }
    return { pg, wal, guard: guardPanics(pg) };
  };
  let db: Instance | undefined = await open();
  let failure: unknown;
  let lastAttempt = 0;
  let closed = false;
  const subscriptions = new Set<Subscription>();
  let tail: Promise<unknown> = Promise.resolve();

  const reopen = async (): Promise<Instance> => {
    if (Date.now() - lastAttempt < REOPEN_INTERVAL_MS) throw new PgliteReopening(failure);
    lastAttempt = Date.now();
    try {
      const fresh = await open();
      for (const subscription of subscriptions)
        subscription.unsubscribe = await fresh.pg.listen(
          subscription.channel,
          subscription.onNotify,
        );
      db = fresh;
      failure = undefined;
      return fresh;
    } catch (error) {
      failure = error;
      throw new PgliteReopening(error);
    }
  };

  /** Retires `instance` after a storage failure or a PANIC: the next call opens a new one. */
  const retire = (instance: Instance, error: unknown) => {
    if (db !== instance || !(isDiskFailure(error) || instance.guard.stoppedBy)) return;
    db = undefined;
    failure = error;
    lastAttempt = Date.now();
    void instance.wal?.close();
  };

  /**
   * Runs `fn` on the live instance, alone, and resolves once what it wrote is durable;
   * the next call starts as soon as `fn` is done (its sync can join this one's group).
   * A storage failure retires the instance.
   */
  const exclusive = <T>(fn: (pg: PGlite) => Promise<T>): Promise<T> => {
    const ran = tail.then(async () => {
      if (closed) throw new Error('PGlite is closed');
      const instance = db ?? (await reopen());
      try {
        return { value: await fn(instance.pg), instance };
      } catch (error) {
        retire(instance, error);
        throw error;
      }
    });
    tail = ran.catch(() => undefined);
    return ran.then(async ({ value, instance }) => {
      try {
        await instance.wal?.durable();
      } catch (error) {
        retire(instance, error);
        throw error;
      }
      return value;
    });
  };

  const run = async <R>(target: PgliteQueryable, text: string, params?: readonly unknown[]) => {
    const result = await target.query<R>(text, params as unknown[] | undefined);
    return {
      rows: result.rows,
      rowCount: result.affectedRows || result.rows.length,
    } satisfies QueryResult<R>;
  };
  const transaction = <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> =>
    exclusive((pg) =>
      pg.transaction((tx) => fn({ query: (text, params) => run(tx, text, params) })),
    );

  return {
    engine: 'pglite',
    supportsConcurrentSessions: false,
    supportsListenNotify: true,
    query: (text, params) => exclusive((pg) => run(pg, text, params)),
    transaction,
    withAdvisoryLock: advisoryLocked(transaction),
    async listen(channel, onNotify) {
      assertChannelName(channel);
      const subscription: Subscription = { channel, onNotify };
      subscription.unsubscribe = await exclusive((pg) => pg.listen(channel, onNotify));
      subscriptions.add(subscription);
      return async () => {
        subscriptions.delete(subscription);
        if (db) await exclusive(async () => subscription.unsubscribe?.());
      };
    },
    async notify(channel, payload) {
      assertChannelName(channel);
      await exclusive((pg) => pg.query('SELECT pg_notify($1, $2)', [channel, payload]));
    },
    // One session, which delivers a notification before its next statement: nothing to wait for.
    syncNotifications: async () => 0,
    async ping() {
      await exclusive((pg) => pg.query('SELECT 1'));
    },
    async close() {
      await tail;
      closed = true;
      // A retired instance is left alone: any statement, even close, could spin.
      if (db && !db.pg.closed) {
        await db.pg.close();
        // The shutdown checkpoint wrote data files and pg_control, unsynced (`-F`).
        await db.wal?.syncDataDir();
      }
      await db?.wal?.close();
    },
  };
}

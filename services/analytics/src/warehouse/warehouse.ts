/**
 * The service's read-only view of the warehouse file. Opened lazily with external access
 * disabled and the configuration locked, so no query can read or write other files,
 * load extensions or change settings. When `analytics build` replaces the file, the next
 * query opens the new one, prepares it (`beforeServing`: the app loads its serving data)
 * and only then switches to it (the old instance closes once its queries finish). Each query
 * runs with a time limit (interrupt) and an optional row cap: the views' reads on pooled
 * connections with their statements prepared once, the SQL tool's on a connection of its own.
 * Each opened file carries its build's identity (`gold.build_info`), returned with every
 * result so answers can name the build they come from (`ETag`, `data_as_of`). The result
 * cache is the second level behind the serving tables: it is cleared when a new build is
 * opened.
 *
 * Errors: `WAREHOUSE_NOT_BUILT` (503) while the file does not exist, `QUERY_TIMEOUT`
 * (504) when the time limit is reached; DuckDB's own errors pass through.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import {
  DuckDBInstance,
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  type DuckDBValue,
} from '@duckdb/node-api';
import { RETRY_AFTER_SECONDS } from '@platform/core';
import { analyticsErrors } from '../errors.js';
import { toJsonRow, type Row } from './duckdb-session.js';

export interface WarehouseOptions {
  /** `…/raw_data.duckdb` */
  file: string;
  /** DuckDB threads. @defaultValue 2 */
  threads?: number;
  /** DuckDB memory limit. @defaultValue `1GB` */
  memoryLimit?: string;
  /** Most disk the queries may spill to past the memory limit. @defaultValue `1GB` */
  spillLimit?: string;
  /** Time limit per query unless the call gives one. @defaultValue 10000 */
  timeoutMs?: number;
  /**
   * Query results kept in memory per warehouse file (the file is immutable between
   * builds, so a result stays true until the next build); 0 turns caching off.
   * @defaultValue 256
   */
  cacheEntries?: number;
  /** Why the warehouse is not there yet (the first build failed), for the 503's detail. */
  whyNotBuilt?: () => string | undefined;
}

export interface QueryOptions {
  /** Stop reading after this many rows and report `truncated`. */
  maxRows?: number;
  timeoutMs?: number;
  /** Use and fill the result cache. @defaultValue true */
  cache?: boolean;
}

export interface QueryOutput {
  columns: string[];
  rows: Row[];
  truncated: boolean;
  /** The build the rows come from. */
  build: BuildInfo;
}

/** Which build of the warehouse answered. */
export interface BuildInfo {
  /** Unique per build (`gold.build_info.build_id`). */
  id: string;
  /** When the build loaded its data, ISO 8601 UTC. */
  builtAt: string;
}

export interface WarehouseInfo {
  file: string;
  modifiedAt: string;
}

export interface Warehouse {
  query(sql: string, params?: DuckDBValue[], options?: QueryOptions): Promise<QueryOutput>;
  /**
   * Parses `sql` with DuckDB without running it: how many statements, and (when exactly
   * one) its prepared statement type (`StatementType`).
   */
  inspect(sql: string): Promise<{ count: number; statementType?: number }>;
  /**
   * A derived answer (e.g. a serialized response) under the build now serving: kept in the
   * result cache beside query results, so it is dropped with them when a new build opens
   * and computed every time when the cache is off. `keep` says whether a computed value may
   * be kept (e.g. not a failure).
   */
  remember<T extends object | string>(
    key: string,
    compute: () => Promise<T>,
    keep?: (value: T) => boolean,
  ): Promise<T>;
  /**
   * A small index of the build now serving (e.g. where each LTV decile starts in the
   * ranking), computed once per opened build whether or not the result cache is on: it
   * is part of how a read is planned, not a cached answer. `compute` names the build its
   * own reads came from; the caller checks it against the build of the read it plans.
   */
  perBuild<T>(
    key: string,
    compute: () => Promise<{ value: T; build: BuildInfo }>,
  ): Promise<{ value: T; build: BuildInfo }>;
  /** Resolves with where the warehouse is; rejects (`WAREHOUSE_NOT_BUILT`) when absent. */
  ping(): Promise<WarehouseInfo>;
  /** The build now serving (opens it when needed); rejects (`WAREHOUSE_NOT_BUILT`) when absent. */
  currentBuild(): Promise<BuildInfo>;
  /**
   * Runs `prepare` on every build opened from now on, before it answers any read: given a
   * warehouse of that build alone, while the previous build (if any) is still the one
   * serving and reads that noticed the new file wait for the switch. For loading the
   * build's serving data (`perBuild`), so its first reads neither wait for nor pay for
   * it. A `prepare` that fails does not stop the switch. Returns how to stop it.
   */
  beforeServing(prepare: (build: Warehouse) => Promise<void>): () => void;
  close(): Promise<void>;
}

interface Opened {
  instance: DuckDBInstance;
  identity: string;
  build: BuildInfo;
  active: number;
  retired: boolean;
  /** Idle connections of this file, each with its prepared statements (see `Pooled`). */
  idle: Pooled[];
  /** `perBuild` values of this file. */
  indexes: Map<string, Promise<{ value: unknown; build: BuildInfo }>>;
}

/**
 * A connection kept between queries, with the statements it prepared, by SQL text. The
 * reads are a few dozen statement shapes, so a repeated read binds and runs a statement
 * prepared before: one trip to DuckDB's threads instead of four (connect, extract,
 * prepare, run), which is what a query cost under concurrent load.
 */
interface Pooled {
  connection: DuckDBConnection;
  prepared: Map<string, DuckDBPreparedStatement>;
}

/** Idle connections kept per file, and statements kept per connection (least recently used dropped). */
const POOLED_CONNECTIONS = 8;
const PREPARED_PER_CONNECTION = 64;

/** Results with more rows than this are not cached. */
const CACHEABLE_ROWS = 5000;
/**
 * Nor results holding more characters than this: a SELECT of the SQL tool can return
 * hundreds of megabytes in few rows, and 256 such entries would exhaust the memory.
 */
const CACHEABLE_CHARS = 1_000_000;

export function createWarehouse(options: WarehouseOptions): Warehouse {
  const cache = new ResultCache(options.cacheEntries ?? 256);
  let current: Opened | undefined;
  let opening: Promise<Opened> | undefined;
  const preparers = new Set<(build: Warehouse) => Promise<void>>();
  const defaultTimeout = options.timeoutMs ?? 10_000;

  async function identity(): Promise<{ id: string; mtime: Date }> {
    // One stat per query: how a replaced file (a new build) is noticed. Synchronous on
    // purpose: a stat of a local file takes microseconds, while the promise form's trip
    // through the thread pool was the largest cost of a cached read.
    try {
      const info = statSync(options.file);
      return { id: `${info.ino}:${info.mtimeMs}:${info.size}`, mtime: info.mtime };
    } catch {
      const why = options.whyNotBuilt?.();
      throw analyticsErrors.WAREHOUSE_NOT_BUILT({
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        ...(why ? { detail: why } : {}),
      });
    }
  }

  function closeInstance(opened: Opened) {
    for (const pooled of opened.idle.splice(0)) pooled.connection.closeSync();
    opened.instance.closeSync();
  }

  function release(opened: Opened) {
    opened.active -= 1;
    if (opened.retired && opened.active === 0) closeInstance(opened);
  }

  async function takeConnection(opened: Opened): Promise<Pooled> {
    return (
      opened.idle.pop() ?? { connection: await opened.instance.connect(), prepared: new Map() }
    );
  }

  function giveBack(opened: Opened, pooled: Pooled) {
    if (opened.retired || opened.idle.length >= POOLED_CONNECTIONS) pooled.connection.closeSync();
    else opened.idle.push(pooled);
  }

  /** The statement for `sql` on this connection, prepared once (most recently used last). */
  async function preparedFor(pooled: Pooled, sql: string): Promise<DuckDBPreparedStatement> {
    let statement = pooled.prepared.get(sql);
    if (statement) pooled.prepared.delete(sql);
    else {
      statement = await pooled.connection.prepare(sql);
      if (pooled.prepared.size >= PREPARED_PER_CONNECTION) {
        const [oldest, dropped] = pooled.prepared.entries().next().value!;
        pooled.prepared.delete(oldest);
        dropped.destroySync();
      }
    }
    pooled.prepared.set(sql, statement);
    return statement;
  }

  async function acquire(): Promise<Opened> {
    const { id } = await identity();
    if (current?.identity === id) {
      current.active += 1;
      return current;
    }
    opening ??= (async () => {
      const instance = await DuckDBInstance.create(options.file, {
        access_mode: 'READ_ONLY',
        enable_external_access: 'false',
        autoload_known_extensions: 'false',
        autoinstall_known_extensions: 'false',
        allow_persistent_secrets: 'false',
        threads: String(options.threads ?? 2),
        memory_limit: options.memoryLimit ?? '1GB',
        max_temp_directory_size: options.spillLimit ?? '1GB',
        lock_configuration: 'true',
      });
      let build: BuildInfo;
      try {
        build = await readBuildInfo(instance, id);
      } catch (error) {
        instance.closeSync();
        throw error;
      }
      const next: Opened = {
        instance,
        identity: id,
        build,
        active: 0,
        retired: false,
        idle: [],
        indexes: new Map(),
      };
      // Prepared on a warehouse of this build alone: it is not `current` yet, so no read
      // sees it half loaded (its `perBuild` values are kept on `next`, for its reads).
      const alone: Warehouse = {
        ...readsOf(async () => {
          next.active += 1;
          return next;
        }),
        beforeServing: () => () => false,
        close: async () => undefined,
      };
      for (const prepare of preparers) await prepare(alone).catch(() => undefined);
      const previous = current;
      current = next;
      cache.clear();
      if (previous) {
        previous.retired = true;
        if (previous.active === 0) closeInstance(previous);
      }
      return current;
    })().finally(() => {
      opening = undefined;
    });
    const opened = await opening;
    opened.active += 1;
    return opened;
  }

  /** The reads of the warehouse on the build `acquire` gives (the one serving, or one being prepared). */
  function readsOf(acquire: () => Promise<Opened>): Warehouse {
    return {
      async query(sql, params, queryOptions = {}) {
        const opened = await acquire();
        const key = JSON.stringify([
          opened.identity,
          sql,
          params ?? [],
          queryOptions.maxRows ?? null,
        ]);
        const useCache = queryOptions.cache !== false;
        const cached = useCache ? (cache.get(key) as QueryOutput | undefined) : undefined;
        if (cached) {
          release(opened);
          return cached;
        }
        // Cached reads (the views) run prepared statements on pooled connections; the SQL
        // tool's queries (`cache: false`) get a fresh connection each, so nothing one of them
        // does to its connection outlives it.
        const pooled: Pooled = useCache
          ? await takeConnection(opened)
          : { connection: await opened.instance.connect(), prepared: new Map() };
        const { connection } = pooled;
        let timedOut = false;
        let failed = false;
        const timer = setTimeout(() => {
          timedOut = true;
          connection.interrupt();
        }, queryOptions.timeoutMs ?? defaultTimeout);
        try {
          let reader;
          if (useCache) {
            const statement = await preparedFor(pooled, sql);
            statement.clearBindings();
            if (params?.length) statement.bind(params);
            reader =
              queryOptions.maxRows === undefined
                ? await statement.runAndReadAll()
                : await statement.streamAndReadUntil(queryOptions.maxRows + 1);
          } else {
            reader =
              queryOptions.maxRows === undefined
                ? await connection.runAndReadAll(sql, params)
                : await connection.streamAndReadUntil(sql, queryOptions.maxRows + 1, params);
          }
          const all = reader.getRowObjectsJS();
          const cap = queryOptions.maxRows ?? Infinity;
          const output = {
            columns: reader.columnNames(),
            rows: all.slice(0, cap).map(toJsonRow),
            truncated: all.length > cap,
            build: opened.build,
          };
          if (
            useCache &&
            output.rows.length <= CACHEABLE_ROWS &&
            charsLeft(output.rows, CACHEABLE_CHARS) >= 0
          )
            cache.set(key, output);
          return output;
        } catch (error) {
          failed = true;
          if (timedOut) throw analyticsErrors.QUERY_TIMEOUT({ cause: error });
          throw error;
        } finally {
          clearTimeout(timer);
          // A connection whose query failed or was interrupted is not reused.
          if (useCache && !failed && !timedOut) giveBack(opened, pooled);
          else connection.closeSync();
          release(opened);
        }
      },
      async remember(key, compute, keep) {
        const opened = await acquire();
        release(opened);
        // Query keys are JSON arrays, so this prefix cannot meet one.
        const full = `remember ${opened.identity} ${key}`;
        const hit = cache.get(full);
        if (hit !== undefined) return hit as never;
        const value = await compute();
        // Kept only while the build it was computed under still serves.
        if (current === opened && (keep?.(value) ?? true) && charsLeft(value, CACHEABLE_CHARS) >= 0)
          cache.set(full, value);
        return value;
      },
      async perBuild<T>(key: string, compute: () => Promise<{ value: T; build: BuildInfo }>) {
        const opened = await acquire();
        release(opened);
        let entry = opened.indexes.get(key);
        if (!entry) {
          entry = compute();
          opened.indexes.set(key, entry);
          // A failed computation, or one that read a newer build, is not kept.
          entry.then(
            ({ build }) => build.id !== opened.build.id && opened.indexes.delete(key),
            () => opened.indexes.delete(key),
          );
        }
        return entry as Promise<{ value: T; build: BuildInfo }>;
      },
      async inspect(sql) {
        const opened = await acquire();
        const connection = await opened.instance.connect();
        try {
          const extracted = await connection.extractStatements(sql);
          if (extracted.count !== 1) return { count: extracted.count };
          const prepared = await extracted.prepare(0);
          const statementType = prepared.statementType;
          prepared.destroySync();
          return { count: 1, statementType };
        } finally {
          connection.closeSync();
          release(opened);
        }
      },
      async ping() {
        const { mtime } = await identity();
        await this.query('SELECT 1 FROM raw_data.gold.vw_executive_kpis LIMIT 0');
        return { file: options.file, modifiedAt: mtime.toISOString() };
      },
      async currentBuild() {
        const opened = await acquire();
        release(opened);
        return opened.build;
      },
      beforeServing(prepare) {
        preparers.add(prepare);
        return () => preparers.delete(prepare);
      },
      async close() {
        await opening?.catch(() => undefined);
        if (current) {
          current.retired = true;
          if (current.active === 0) closeInstance(current);
          current = undefined;
        }
      },
    };
  }

  return readsOf(acquire);
}

/**
 * The build identity recorded by the pipeline; a warehouse built before it recorded one
 * is named after its file (inode, modification time, size).
 */
async function readBuildInfo(instance: DuckDBInstance, fileIdentity: string): Promise<BuildInfo> {
  const connection = await instance.connect();
  try {
    const exists = await connection.runAndReadAll(
      "SELECT count(*) AS n FROM duckdb_tables() WHERE schema_name = 'gold' AND table_name = 'build_info'",
    );
    if (Number(exists.getRowObjectsJS()[0]?.n) > 0) {
      const reader = await connection.runAndReadAll(
        'SELECT build_id, built_at FROM gold.build_info LIMIT 1',
      );
      const row = reader.getRowObjectsJS()[0];
      if (row?.build_id && row.built_at instanceof Date)
        return { id: String(row.build_id), builtAt: row.built_at.toISOString() };
    }
  } finally {
    connection.closeSync();
  }
  const [, mtimeMs] = fileIdentity.split(':');
  return {
    id: createHash('sha256').update(fileIdentity).digest('hex').slice(0, 32),
    builtAt: new Date(Number(mtimeMs)).toISOString(),
  };
}

/** A small LRU of query results (a Map keeps insertion order). Results are frozen: callers share them. */
class ResultCache {
  private readonly entries = new Map<string, QueryOutput | object | string>();
  constructor(private readonly capacity: number) {}

  get(key: string): QueryOutput | object | string | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: QueryOutput | object | string): void {
    if (this.capacity <= 0) return;
    this.entries.set(key, deepFreeze(value));
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** `budget` less the characters in `value` (strings by length, bytes by count, other values as 8); stops below 0. */
function charsLeft(value: unknown, budget: number): number {
  if (typeof value === 'string') return budget - value.length;
  if (ArrayBuffer.isView(value)) return budget - value.byteLength;
  if (!value || typeof value !== 'object') return budget - 8;
  for (const inner of Object.values(value)) {
    budget = charsLeft(inner, budget);
    if (budget < 0) break;
  }
  return budget;
}

function deepFreeze<T>(value: T): T {
  // Bytes (a serialized answer) cannot be frozen: the callers that keep them never write them.
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

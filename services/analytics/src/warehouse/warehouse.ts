/**
 * The service's read-only view of the warehouse file. Opened lazily with external access
 * disabled and the configuration locked, so no query can read or write other files,
 * load extensions or change settings. When `analytics build` replaces the file, the next
 * query opens the new one (the old instance closes once its queries finish). Each query
 * runs on its own connection with a time limit (interrupt) and an optional row cap.
 *
 * Errors: `WAREHOUSE_NOT_BUILT` (503) while the file does not exist, `QUERY_TIMEOUT`
 * (504) when the time limit is reached; DuckDB's own errors pass through.
 */
import { stat } from 'node:fs/promises';
import { DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { errors } from '../errors.js';
import { toJsonRow, type Row } from './duckdb-session.js';

export interface WarehouseOptions {
  /** `…/raw_data.duckdb` */
  file: string;
  /** DuckDB threads. @defaultValue 2 */
  threads?: number;
  /** DuckDB memory limit. @defaultValue `1GB` */
  memoryLimit?: string;
  /** Time limit per query unless the call gives one. @defaultValue 10000 */
  timeoutMs?: number;
}

export interface QueryOptions {
  /** Stop reading after this many rows and report `truncated`. */
  maxRows?: number;
  timeoutMs?: number;
}

export interface QueryOutput {
  columns: string[];
  rows: Row[];
  truncated: boolean;
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
  /** Resolves with where the warehouse is; rejects (`WAREHOUSE_NOT_BUILT`) when absent. */
  ping(): Promise<WarehouseInfo>;
  close(): Promise<void>;
}

interface Opened {
  instance: DuckDBInstance;
  identity: string;
  active: number;
  retired: boolean;
}

export function createWarehouse(options: WarehouseOptions): Warehouse {
  let current: Opened | undefined;
  let opening: Promise<Opened> | undefined;
  const defaultTimeout = options.timeoutMs ?? 10_000;

  async function identity(): Promise<{ id: string; mtime: Date }> {
    try {
      const info = await stat(options.file);
      return { id: `${info.ino}:${info.mtimeMs}:${info.size}`, mtime: info.mtime };
    } catch {
      throw errors.WAREHOUSE_NOT_BUILT();
    }
  }

  function release(opened: Opened) {
    opened.active -= 1;
    if (opened.retired && opened.active === 0) opened.instance.closeSync();
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
        threads: String(options.threads ?? 2),
        memory_limit: options.memoryLimit ?? '1GB',
        lock_configuration: 'true',
      });
      const previous = current;
      current = { instance, identity: id, active: 0, retired: false };
      if (previous) {
        previous.retired = true;
        if (previous.active === 0) previous.instance.closeSync();
      }
      return current;
    })().finally(() => {
      opening = undefined;
    });
    const opened = await opening;
    opened.active += 1;
    return opened;
  }

  return {
    async query(sql, params, queryOptions = {}) {
      const opened = await acquire();
      const connection = await opened.instance.connect();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        connection.interrupt();
      }, queryOptions.timeoutMs ?? defaultTimeout);
      try {
        const reader = queryOptions.maxRows === undefined
          ? await connection.runAndReadAll(sql, params)
          : await connection.streamAndReadUntil(sql, queryOptions.maxRows + 1, params);
        const all = reader.getRowObjectsJS();
        const cap = queryOptions.maxRows ?? Infinity;
        return { columns: reader.columnNames(), rows: all.slice(0, cap).map(toJsonRow), truncated: all.length > cap };
      } catch (error) {
        if (timedOut) throw errors.QUERY_TIMEOUT({ cause: error });
        throw error;
      } finally {
        clearTimeout(timer);
        connection.closeSync();
        release(opened);
      }
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
    async close() {
      await opening?.catch(() => undefined);
      if (current) {
        current.retired = true;
        if (current.active === 0) current.instance.closeSync();
        current = undefined;
      }
    },
  };
}

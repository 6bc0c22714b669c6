/**
 * The slice of DuckDB the service uses: one database file (or `:memory:`), statements
 * with positional parameters, rows as plain JSON-ready objects (BIGINT and DECIMAL as
 * numbers, dates and timestamps as ISO strings). Everything else imports this, never
 * `@duckdb/node-api` directly.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';

export type Row = Record<string, unknown>;
export type Params = DuckDBValue[];

export interface DuckDbSession {
  /** Runs one or more statements; returns the number of rows changed by the last one. */
  exec(sql: string, params?: Params): Promise<number>;
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
  /** A connection of its own, for work that must be cancelled alone (`interrupt`). */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

export interface OpenOptions {
  readOnly?: boolean;
  /** Extra DuckDB settings, e.g. `{ threads: '2' }`. */
  settings?: Record<string, string>;
}

export async function openDuckDb(path: string, options: OpenOptions = {}): Promise<DuckDbSession> {
  const settings: Record<string, string> = { ...options.settings };
  if (options.readOnly) settings.access_mode = 'READ_ONLY';
  const instance = await DuckDBInstance.create(path, settings);
  const connection = await instance.connect();
  return {
    async exec(sql, params) {
      const result = await connection.run(sql, params);
      return Number(result.rowsChanged);
    },
    async all<T extends Row>(sql: string, params?: Params) {
      const reader = await connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJS().map((row) => toJsonRow(row) as T);
    },
    connect: () => instance.connect(),
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** DuckDB's JS values made JSON-ready: numbers for integers that fit, ISO strings for times. */
export function toJsonRow(row: Record<string, unknown>): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) out[key] = toJsonValue(value);
  return out;
}

function toJsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object') {
    const plain = value as Record<string, unknown>;
    if (Object.getPrototypeOf(value) === Object.prototype) return toJsonRow(plain);
    return String(value);
  }
  return value;
}

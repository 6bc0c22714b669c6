/**
 * The messages between a PGlite database on its own thread (`pglite-thread.ts`) and the
 * `SqlDatabase` the rest of the process holds (`pglite-thread-database.ts`). Values cross
 * by structured clone (rows, parameters, Dates, bytes); errors cross as their own fields,
 * since a clone keeps only an Error's message and stack, and callers read `code` (the
 * SQLSTATE: 23505, 57P03, 53100, …) and `detail`.
 */
import type { QueryResult } from '../sql-database.js';

export interface PgliteThreadData {
  dataDir: string;
}

export type ToThread =
  | { op: 'query'; id: number; text: string; params: readonly unknown[] | undefined }
  /** Opens transaction `id`: answered by `opened` (or `failed` when it could not open). */
  | { op: 'begin'; id: number }
  | { op: 'tx-query'; id: number; tx: number; text: string; params: readonly unknown[] | undefined }
  /** Ends transaction `tx` (committed, or rolled back): answered with its outcome. */
  | { op: 'end'; id: number; tx: number; commit: boolean }
  | { op: 'listen'; id: number; channel: string }
  | { op: 'unlisten'; id: number; subscription: number }
  | { op: 'close'; id: number };

export type FromThread =
  | { op: 'ready' }
  | { op: 'open-failed'; error: SerializedError }
  | { op: 'done'; id: number; result?: QueryResult<unknown> }
  | { op: 'failed'; id: number; error: SerializedError }
  | { op: 'opened'; id: number }
  | { op: 'notification'; subscription: number; payload: string };

export interface SerializedError {
  name: string;
  message: string;
  stack: string | undefined;
  /** Own fields of the error (code, detail, severity, constraint, …) that clone. */
  fields: Record<string, unknown>;
}

const CLONEABLE = new Set(['string', 'number', 'boolean', 'bigint']);

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error))
    return { name: 'Error', message: String(error), stack: undefined, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error))
    if (value === null || CLONEABLE.has(typeof value)) fields[key] = value;
  // `code` may be a getter or a class field: read it by name too.
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') fields.code = code;
  if (error.cause !== undefined) fields.cause = serializeError(error.cause);
  return { name: error.name, message: error.message, stack: error.stack, fields };
}

export function deserializeError(serialized: SerializedError): Error {
  const { cause, ...fields } = serialized.fields;
  const error = new Error(serialized.message, {
    ...(cause === undefined ? {} : { cause: deserializeError(cause as SerializedError) }),
  });
  error.name = serialized.name;
  if (serialized.stack !== undefined) error.stack = serialized.stack;
  return Object.assign(error, fields);
}

/**
 * Errors that say "a dependency is down", not "this request is wrong" (issue 21 item 4):
 * a lost or refused database connection becomes a 503 naming the database and its
 * engine, with `Retry-After`, instead of a bare 500. Used as the HTTP apps'
 * `classifyError`; the broker's failures are already `BROKER_UNAVAILABLE`.
 */
import type { AppError, SqlDatabase } from '@platform/core';
import { integrationErrors } from './errors.js';

/** Seconds a client is asked to wait: about one /health check and reconnect. */
export const RETRY_AFTER_SECONDS = 5;

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
/** SQLSTATE 08 connection exception, 57P01-03 shutdown / cannot connect now, 53300 too many connections. */
const UNAVAILABLE_SQLSTATE = /^08|^57P0[1-3]$|^53300$/;
const UNAVAILABLE_MESSAGE =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused|PGlite is closed|not queryable|ENOSPC|EIO/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)))
    return true;
  return error instanceof Error && UNAVAILABLE_MESSAGE.test(error.message);
}

/**
 * A lost connection whose statement may have reached the database and committed (the
 * answer was lost, not the request): refused or timed-out connects, and the server
 * refusing new connections, never sent anything, so they are not in doubt.
 */
const NEVER_SENT =
  /ECONNREFUSED|Connection refused|timeout exceeded when trying to connect|^57P03$|^53300$/i;

export function mayHaveCommitted(error: unknown): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NEVER_SENT.test(code)) return false;
  return !(error instanceof Error && NEVER_SENT.test(error.message));
}

export function classifyDependencyError(db: SqlDatabase) {
  return (error: unknown): AppError | undefined =>
    isDatabaseUnavailable(error)
      ? integrationErrors.DATABASE_UNAVAILABLE({
          detail: `database unavailable (${db.engine}); try again shortly`,
          cause: error,
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        })
      : undefined;
}

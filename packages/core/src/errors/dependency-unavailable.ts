/**
 * Errors that say "a dependency is down", not "this request is wrong" (issue 21 item 4):
 * a lost, refused or timed-out connection to the database (PostgreSQL or PGlite) or to
 * Redis. A service's `classifyError` turns them into a 503 naming the dependency, with
 * `Retry-After`, instead of a bare 500.
 */

/** Seconds a client is asked to wait: about one /health check and reconnect. */
export const RETRY_AFTER_SECONDS = 5;

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
/**
 * SQLSTATE 08 connection exception, 57P01-03 shutdown / cannot connect now, 53300 too many
 * connections, 53100 disk full, 58030 I/O error (the database's disk, not the request).
 */
const UNAVAILABLE_SQLSTATE = /^08|^57P0[1-3]$|^53[13]00$|^58030$/;
const UNAVAILABLE_MESSAGE =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused|ENOSPC|EIO|No space left on device/i;

/**
 * The embedded driver's own words for a database that cannot answer now: closed, reopening
 * after a storage failure (`pglite-database.ts`), or its thread gone
 * (`pglite-thread-database.ts`). One list, for every classifier that must know them.
 */
const PGLITE_UNAVAILABLE_MESSAGE = /PGlite is closed|the PGlite thread exited|not queryable/i;

export function isPgliteUnavailable(error: unknown): boolean {
  return PGLITE_UNAVAILABLE_MESSAGE.test(error instanceof Error ? error.message : String(error));
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)))
    return true;
  return (
    error instanceof Error &&
    (UNAVAILABLE_MESSAGE.test(error.message) || isPgliteUnavailable(error))
  );
}

/** ioredis's words for a connection it lost or could not make (its commands then fail). */
const REDIS_UNAVAILABLE_MESSAGE =
  /Connection is closed|Stream isn't writeable|max retries per request|Command timed out|ECONNREFUSED|ECONNRESET/;

export function isRedisUnavailable(error: unknown): boolean {
  return error instanceof Error && REDIS_UNAVAILABLE_MESSAGE.test(error.message);
}

/** SQLSTATE 53100 disk_full, 58030 io_error; Node's ENOSPC / EDQUOT / EIO from a file write. */
const DISK_FAILURE_CODES = new Set(['53100', '58030', 'ENOSPC', 'EDQUOT', 'EIO']);
const DISK_FAILURE_MESSAGE = /No space left on device|Input\/output error|after a storage failure/i;

/**
 * A write that failed because the disk under the service is full or failing (issue 21):
 * a 503 naming the disk, not a 500, and nothing was stored.
 */
export function isDiskFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && DISK_FAILURE_CODES.has(code)) return true;
  return error instanceof Error && DISK_FAILURE_MESSAGE.test(error.message);
}

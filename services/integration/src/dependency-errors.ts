/**
 * Errors that say "a dependency is down", not "this request is wrong" (issue 21 item 4):
 * a lost or refused database connection becomes a 503 naming the database and its
 * engine, with `Retry-After`, instead of a bare 500. Used as the HTTP apps'
 * `classifyError`; the broker's failures are already `BROKER_UNAVAILABLE`.
 */
import {
  isDatabaseUnavailable,
  isDiskFailure,
  RETRY_AFTER_SECONDS,
  type AppError,
  type SqlDatabase,
} from '@platform/core';
import { integrationErrors } from './errors.js';

// Moved to core (render classifies the same errors); kept here for integration's imports.
export { isDatabaseUnavailable, RETRY_AFTER_SECONDS };

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
  const options = (cause: unknown) => ({
    cause,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
  return (error: unknown): AppError | undefined => {
    // Named as render names it: the client learns it was the disk, not the connection.
    if (isDiskFailure(error))
      return integrationErrors.DATABASE_UNAVAILABLE({
        detail: `database unavailable (${db.engine}): the disk under it is full or failing; nothing was stored; try again shortly`,
        ...options(error),
      });
    if (isDatabaseUnavailable(error))
      return integrationErrors.DATABASE_UNAVAILABLE({
        detail: `database unavailable (${db.engine}); try again shortly`,
        ...options(error),
      });
    return undefined;
  };
}

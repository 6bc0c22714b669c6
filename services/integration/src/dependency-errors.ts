/**
 * Errors that say "a dependency is down", not "this request is wrong" (issue 21 item 4):
 * a lost or refused database connection becomes a 503 naming the database and its
 * engine, with `Retry-After`, instead of a bare 500. Used as the HTTP apps'
 * `classifyError`; the broker's failures are already `BROKER_UNAVAILABLE`.
 * A disk failure's detail says "nothing was stored" only when that is certain: after
 * PGlite's failed WAL sync (`isUnsyncedCommit`) the commit is in doubt. The intake asks
 * its outbox first (`submission/in-doubt-write.ts`); an error that still reaches this
 * could not be asked about in time, so the detail says the write may have been stored.
 */
import {
  isDatabaseUnavailable,
  isDiskFailure,
  isUnsyncedCommit,
  RETRY_AFTER_SECONDS,
  type AppError,
  type SqlDatabase,
} from '@platform/core';
import { integrationErrors } from './errors.js';

// Moved to core (render classifies the same errors); kept here for integration's imports.
export { isDatabaseUnavailable, RETRY_AFTER_SECONDS };
// In core too (render's admission asks after a lost answer as the intake does).
export { mayHaveCommitted } from '@platform/core';

export function classifyDependencyError(db: SqlDatabase) {
  const options = (cause: unknown) => ({
    cause,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
  return (error: unknown): AppError | undefined => {
    // Named as render names it: the client learns it was the disk, not the connection.
    if (isUnsyncedCommit(error))
      return integrationErrors.DATABASE_UNAVAILABLE({
        detail: `database unavailable (${db.engine}): the disk under it is full or failing; what this request wrote may or may not have been stored; read the record before sending it again`,
        ...options(error),
      });
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

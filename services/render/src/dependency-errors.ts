/**
 * A lost or refused connection to the database or to Redis is a 503 naming it, with
 * `Retry-After`, not a bare 500 (issue 21 item 4, found by the render chaos run: a
 * submission while the PostgreSQL connection was cut answered 500). A disk failure's
 * detail says "Nothing was stored" only when that is certain: after PGlite's failed WAL
 * sync (`isUnsyncedCommit`) the commit is in doubt, and the detail says so. A submission
 * never reaches this with its commit in doubt: admission asks whether its job is stored
 * first (`admission/submit-render.ts`).
 */
import {
  isDatabaseUnavailable,
  isDiskFailure,
  isRedisUnavailable,
  isUnsyncedCommit,
  RETRY_AFTER_SECONDS,
  type AppError,
  type SqlDatabase,
} from '@platform/core';
import { renderErrors } from './errors.js';

export function classifyDependencyError(db: SqlDatabase) {
  const options = (cause: unknown) => ({
    cause,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
  return (error: unknown): AppError | undefined => {
    if (isUnsyncedCommit(error))
      return renderErrors.DATABASE_UNAVAILABLE({
        detail: `The database (${db.engine}) cannot write: the disk under it is full or failing. What this request wrote may or may not have been stored; please check before trying again.`,
        ...options(error),
      });
    if (isDiskFailure(error))
      return renderErrors.DATABASE_UNAVAILABLE({
        detail: `The database (${db.engine}) cannot write: the disk under it is full or failing. Nothing was stored; please try again shortly.`,
        ...options(error),
      });
    if (isDatabaseUnavailable(error))
      return renderErrors.DATABASE_UNAVAILABLE({
        detail: `The database (${db.engine}) is unavailable. Please try again shortly.`,
        ...options(error),
      });
    if (isRedisUnavailable(error)) return renderErrors.REDIS_UNAVAILABLE(options(error));
    return undefined;
  };
}

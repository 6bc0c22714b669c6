/**
 * A lost or refused connection to the database or to Redis is a 503 naming it, with
 * `Retry-After`, not a bare 500 (issue 21 item 4, found by the render chaos run: a
 * submission while the PostgreSQL connection was cut answered 500). Nothing was
 * accepted: the job row and its outbox event are one transaction.
 */
import {
  isDatabaseUnavailable,
  isDiskFailure,
  isRedisUnavailable,
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

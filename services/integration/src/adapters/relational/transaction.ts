/**
 * Runs a write in a transaction and names what failed, for the classifier: BEGIN not
 * possible → `TransactionOpenError`; an error of the transaction machinery (COMMIT,
 * connection lost) rather than of the write → `TransactionError` wrapping it. Errors of
 * the write itself pass through unchanged (their SQLSTATE decides).
 */
import type { SqlDatabase, SqlExecutor } from '@platform/core';
import { TransactionError, TransactionOpenError } from '../runtime/failures.js';

export async function inTransaction<T>(
  db: SqlDatabase,
  fn: (tx: SqlExecutor) => Promise<T>,
): Promise<T> {
  let entered = false;
  let writeError: unknown;
  try {
    return await db.transaction(async (tx) => {
      entered = true;
      try {
        return await fn(tx);
      } catch (error) {
        writeError = error;
        throw error;
      }
    });
  } catch (error) {
    if (!entered)
      throw new TransactionOpenError(`could not open a transaction: ${(error as Error).message}`, {
        cause: error,
      });
    if (error === writeError) throw error;
    throw new TransactionError(`transaction failed: ${(error as Error).message}`, { cause: error });
  }
}

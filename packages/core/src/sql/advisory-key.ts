/** Maps a string to the signed 64-bit key `pg_advisory_xact_lock` takes. */
import { createHash } from 'node:crypto';
import type { SqlDatabase } from './sql-database.js';

export function advisoryLockKey(key: string): string {
  return createHash('sha256').update(key).digest().readBigInt64BE(0).toString();
}

export const ADVISORY_LOCK_SQL = 'SELECT pg_advisory_xact_lock($1::bigint)';

/** A driver's `withAdvisoryLock` from its `transaction`: the lock is the transaction's first statement. */
export const advisoryLocked =
  (transaction: SqlDatabase['transaction']): SqlDatabase['withAdvisoryLock'] =>
  (key, fn) =>
    transaction(async (tx) => {
      await tx.query(ADVISORY_LOCK_SQL, [advisoryLockKey(key)]);
      return fn(tx);
    });

const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Channel names go into LISTEN as identifiers, so only plain lower-case names are allowed. */
export function assertChannelName(channel: string): void {
  if (!CHANNEL_PATTERN.test(channel)) {
    throw new Error(`invalid notification channel name: ${JSON.stringify(channel)}`);
  }
}

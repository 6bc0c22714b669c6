/**
 * A write whose answer was lost (issue 21): the call failed, yet the database may have
 * committed it. Two ways: the connection broke after the statement was sent (the answer
 * was lost, not the request), or PGlite's WAL sync failed after the commit (core's
 * driver: `WalSyncFailed`; the row is in the page cache and the reopened instance sees
 * it). Answering "nothing was stored" then is a promise the database may break, so a
 * service asks, on a fresh connection, whether the write is there: stored (go on as if
 * the call had answered), not stored (the refusal stands), or, when the database cannot
 * be asked in time, unknown (say so). Integration asks its outbox, render its job row.
 */
import { isDatabaseUnavailable } from './dependency-unavailable.js';

/** How long a service asks by default before it answers "unknown". */
export const IN_DOUBT_WAIT_MS = 30_000;
const ASK_AGAIN_MS = 250;

/**
 * Refused or timed-out connects, and a server refusing new connections (57P03 also for
 * PGlite reopening after a storage failure), never sent anything: they are not in doubt.
 */
const NEVER_SENT =
  /ECONNREFUSED|Connection refused|timeout exceeded when trying to connect|^57P03$|^53300$/i;

/**
 * Whether the failed call may have committed: a lost connection whose statement may have
 * reached the database, or a storage failure (53100 / 58030) — PGlite's failed WAL sync
 * after the commit among them. Conservative: a write the disk refused outright is asked
 * about too (and found absent).
 */
export function mayHaveCommitted(error: unknown): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NEVER_SENT.test(code)) return false;
  return !(error instanceof Error && NEVER_SENT.test(error.message));
}

/**
 * A disk failure after which the commit is in doubt: PGlite's WAL was written but its
 * sync failed. A disk failure of any other kind refused the write (nothing stored).
 */
export function isUnsyncedCommit(error: unknown): boolean {
  // By name: a driver is imported only by its factory (the class is in sql/pglite/wal-sync.ts).
  return error instanceof Error && error.name === 'WalSyncFailed';
}

/** What asking found: the write's trace, its absence, or nothing in time. */
export type InDoubtAnswer<T> =
  { stored: true; value: T } | { stored: false } | { stored: 'unknown' };

/**
 * Asks `ask` (the write's trace, or undefined when absent) until it answers; a database
 * still unreachable is asked again every 250 ms until `waitMs` has passed, then the
 * answer is `unknown` (as it is at once for any other error of the ask).
 */
export async function askAfterLostAnswer<T>(
  ask: () => Promise<T | undefined>,
  waitMs = IN_DOUBT_WAIT_MS,
): Promise<InDoubtAnswer<T>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const value = await ask();
      return value === undefined ? { stored: false } : { stored: true, value };
    } catch (askError) {
      if (!isDatabaseUnavailable(askError) || Date.now() >= deadline) return { stored: 'unknown' };
    }
    await new Promise((resolve) => setTimeout(resolve, ASK_AGAIN_MS));
  }
}

/**
 * Stops a PGlite instance at its backend's PANIC, before PGlite itself sends it another
 * message (issue 21: the render service's embedded chaos run hung for good).
 *
 * When PostgreSQL cannot write its WAL (a full or failing disk) it PANICs inside
 * `XLogWrite`, holding `WALWriteLock`. A real server dies and restarts from its WAL;
 * PGlite reports the PANIC as an error and keeps the backend, lock still held. The next
 * flush then waits for that lock in `LWLockAcquireOrWait`, whose semaphore wait is a
 * no-op in PGlite's single-process WebAssembly: it loops forever on the main thread, and
 * the process answers nothing more. The driver retired such an instance when a call
 * failed, but PGlite's own code sends one more message before the call fails: after a
 * simple query (`exec`, which `transaction` uses for `COMMIT`) it sends a Sync in a
 * `finally`, and on an error inside `transaction` a `ROLLBACK`. After a COMMIT that
 * PANICked, that Sync commits again: `XLogFlush` under `CommitTransactionCommand`,
 * spinning (the stack `node inspect` showed; reproduced in
 * test/sql/pglite-panic.test.ts).
 *
 * So the guard wraps the instance's protocol entry points: a PANIC or FATAL (the backend
 * is gone, as on a server) marks the instance stopped, and every later message is refused
 * without entering the WebAssembly, with an error that keeps the first one's SQLSTATE and
 * text (a disk failure stays one: 503 upstream). The driver retires a stopped instance
 * and opens a new one, which replays the WAL.
 */
import type { PGlite } from '@electric-sql/pglite';

/** Severities after which PostgreSQL's backend does not go on (the process exits). */
const BACKEND_ENDING = new Set(['PANIC', 'FATAL']);

/** The error of any message sent to an instance after its backend PANICked. */
export class PgliteStopped extends Error {
  readonly code: string | undefined;
  constructor(override readonly cause: Error & { code?: string }) {
    super(`PGlite stopped after a PANIC (${cause.message}); it is reopened from its WAL`);
    this.code = cause.code;
  }
}

export interface PanicGuard {
  /** The PANIC or FATAL that stopped the instance, if one did. */
  readonly stoppedBy: (Error & { code?: string }) | undefined;
}

const endsBackend = (error: unknown): error is Error & { code?: string } =>
  error instanceof Error &&
  BACKEND_ENDING.has((error as { severity?: unknown }).severity as string);

/** Wraps `pg`'s protocol methods (every query, exec, transaction and listen goes through them). */
export function guardPanics(pg: PGlite): PanicGuard {
  const guard: { stoppedBy: (Error & { code?: string }) | undefined } = { stoppedBy: undefined };
  const noticeEnd = (error: unknown) => {
    if (endsBackend(error)) guard.stoppedBy ??= error;
  };
  const rawSync = pg.execProtocolRawSync.bind(pg);
  pg.execProtocolRawSync = (message) => {
    if (guard.stoppedBy) throw new PgliteStopped(guard.stoppedBy);
    return rawSync(message);
  };
  // The errors are parsed here, above the raw call: PGlite's query, exec and transaction
  // go through execProtocolStream, listen and close through execProtocol.
  const stream = pg.execProtocolStream.bind(pg);
  pg.execProtocolStream = (message, options) =>
    stream(message, options).catch((error: unknown) => {
      noticeEnd(error);
      throw error;
    });
  const exec = pg.execProtocol.bind(pg);
  pg.execProtocol = (message, options) =>
    exec(message, options).catch((error: unknown) => {
      noticeEnd(error);
      throw error;
    });
  return guard;
}

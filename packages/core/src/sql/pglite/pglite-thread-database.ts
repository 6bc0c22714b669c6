/**
 * The embedded PGlite database on a worker thread of its own (`pglite-thread.ts`), behind
 * the same `SqlDatabase` as `createPgliteDatabase`. PGlite runs PostgreSQL in
 * WebAssembly on the thread that calls it: in the main thread, a service's HTTP, broker
 * and adapters wait for every statement, and a 2-core machine's second core stays idle.
 * On a thread, the statement runs beside the main thread's work, and the main thread
 * pays only a structured clone of the parameters and the rows.
 *
 * Semantics are `createPgliteDatabase`'s, run on the thread: one session, statements one
 * at a time, durable commits, the reopen after a storage failure, LISTEN re-made on the
 * new instance. A transaction's statements come from this thread one by one, so the
 * database waits for this thread's event loop between them; keep transactions short.
 *
 * The thread does not keep the process alive by itself: it is referenced only while a
 * call waits for it (a forgotten database does not hold a process open, as in-process
 * PGlite does not). A thread that dies fails every waiting call and every later one.
 */
import type { Logger } from 'pino';
import { startTypeScriptWorker } from '../../threads/typescript-worker.js';
import { advisoryLocked, assertChannelName } from '../advisory-key.js';
import type { QueryResult, SqlDatabase, SqlExecutor } from '../sql-database.js';
import {
  deserializeError,
  type FromThread,
  type PgliteThreadData,
  type ToThread,
} from './thread-protocol.js';

export interface PgliteThreadOptions {
  /** Folder for the database files, or `memory://` for a throw-away one. */
  dataDir: string;
  /** The thread's entry; a bundle of `pglite-thread.ts` starts without tsx. */
  threadEntry?: URL;
  /** Told when the thread ends without `close()` (every call fails from then on). */
  logger?: Logger;
}

export const PGLITE_THREAD_ENTRY = new URL('./pglite-thread.ts', import.meta.url);

interface Waiting {
  resolve: (message: FromThread) => void;
  reject: (error: Error) => void;
}

/** A message to the thread before `call` gives it its id (each member of the union kept). */
type WithoutId<M> = M extends unknown ? Omit<M, 'id'> : never;
type Request = WithoutId<ToThread>;

export async function createPgliteThreadDatabase({
  dataDir,
  threadEntry = PGLITE_THREAD_ENTRY,
  logger,
}: PgliteThreadOptions): Promise<SqlDatabase> {
  const worker = startTypeScriptWorker(threadEntry, {
    workerData: { dataDir } satisfies PgliteThreadData,
  });
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) =>
      reject(new Error(`the PGlite thread exited (code ${code}) before it opened`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (message: FromThread) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (message.op === 'ready') resolve();
      else if (message.op === 'open-failed') reject(deserializeError(message.error));
      else reject(new Error(`the PGlite thread sent ${message.op} before it opened`));
    });
  });

  const waiting = new Map<number, Waiting>();
  const listeners = new Map<number, (payload: string) => void>();
  let nextId = 1;
  let ended: Error | undefined;
  worker.unref();

  const settle = (id: number, message: FromThread) => {
    const call = waiting.get(id);
    if (!call) return;
    waiting.delete(id);
    if (waiting.size === 0) worker.unref();
    call.resolve(message);
  };
  worker.on('message', (message: FromThread) => {
    if (message.op === 'notification') listeners.get(message.subscription)?.(message.payload);
    else if ('id' in message) settle(message.id, message);
  });
  // Its words are a database that is down (core's `isDatabaseUnavailable`): a request gets
  // a 503, an adapter holds its position, `/health` fails. Nothing restarts the thread in
  // the process; the service's supervisor restarts the service, as after any crash.
  const end = (error: Error) => {
    if (!ended)
      logger?.error(
        { err: error },
        'the PGlite thread ended: every database call fails until the service is restarted',
      );
    ended ??= error;
    for (const call of waiting.values()) call.reject(ended);
    waiting.clear();
  };
  worker.on('error', (error) =>
    end(new Error(`the PGlite thread exited: ${error.message}`, { cause: error })),
  );
  worker.on('exit', (code) => end(new Error(`the PGlite thread exited (code ${code})`)));

  /** Sends `request` under a new id; resolves with the thread's answer to it. */
  const call = (request: Request, id = nextId++): Promise<FromThread> => {
    if (ended) return Promise.reject(ended);
    return new Promise<FromThread>((resolve, reject) => {
      // A parameter that cannot be cloned (a function, a socket) throws here: nothing sent.
      worker.postMessage({ ...request, id } as ToThread);
      if (waiting.size === 0) worker.ref();
      waiting.set(id, { resolve, reject });
    });
  };
  /** `call`, failing with the thread's error when it answers `failed`. */
  const run = async (request: Request, id?: number): Promise<FromThread> => {
    const answer = await call(request, id);
    if (answer.op === 'failed') throw deserializeError(answer.error);
    return answer;
  };
  const resultOf = <R>(answer: FromThread) =>
    (answer.op === 'done' ? answer.result : undefined) as QueryResult<R>;

  const transaction = async <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const tx = nextId++;
    await run({ op: 'begin' }, tx);
    const executor: SqlExecutor = {
      query: async <R>(text: string, params?: readonly unknown[]) =>
        resultOf<R>(await run({ op: 'tx-query', tx, text, params })),
    };
    let value: T;
    try {
      value = await fn(executor);
    } catch (error) {
      // Rolled back; the caller's error is the one that counts.
      await call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await run({ op: 'end', tx, commit: true });
    return value;
  };

  return {
    engine: 'pglite',
    supportsConcurrentSessions: false,
    supportsListenNotify: true,
    query: async <R>(text: string, params?: readonly unknown[]) =>
      resultOf<R>(await run({ op: 'query', text, params })),
    transaction,
    withAdvisoryLock: advisoryLocked(transaction),
    async listen(channel, onNotify) {
      assertChannelName(channel);
      const subscription = nextId++;
      listeners.set(subscription, onNotify);
      try {
        await run({ op: 'listen', channel }, subscription);
      } catch (error) {
        listeners.delete(subscription);
        throw error;
      }
      return async () => {
        listeners.delete(subscription);
        await run({ op: 'unlisten', subscription });
      };
    },
    async notify(channel, payload) {
      assertChannelName(channel);
      await run({ op: 'query', text: 'SELECT pg_notify($1, $2)', params: [channel, payload] });
    },
    syncNotifications: async () => 0,
    async ping() {
      await run({ op: 'query', text: 'SELECT 1', params: undefined });
    },
    async close() {
      if (ended) return;
      await run({ op: 'close' });
      ended = new Error('PGlite is closed');
      // Closed and synced: the thread is ended, not left to run out (a retired instance,
      // dropped unclosed after a storage failure, may keep its event loop alive).
      await worker.terminate();
    },
  };
}

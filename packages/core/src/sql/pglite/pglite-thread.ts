/**
 * A worker thread holding one PGlite database (`createPgliteDatabase`, with its WAL sync,
 * PANIC guard and reopen) and running what the parent sends (`thread-protocol.ts`).
 * PostgreSQL's WebAssembly and PGlite's JavaScript (the wire protocol, result parsing,
 * the Emscripten file layer) then take this thread's core, not the service's main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlExecutor, Unlisten } from '../sql-database.js';
import { createPgliteDatabase } from './pglite-database.js';
import {
  serializeError,
  type FromThread,
  type PgliteThreadData,
  type ToThread,
} from './thread-protocol.js';

const port = parentPort;
if (!port) throw new Error('pglite-thread.ts runs as a worker thread');
const send = (message: FromThread) => port.postMessage(message);
const { dataDir } = workerData as PgliteThreadData;

/** An open transaction: its executor, how `end` settles it, and its outcome. */
interface OpenTransaction {
  tx: SqlExecutor;
  end: (commit: boolean) => void;
  outcome: Promise<void>;
}

try {
  const db = await createPgliteDatabase({ dataDir });
  const transactions = new Map<number, OpenTransaction>();
  const subscriptions = new Map<number, Unlisten>();

  const fail = (id: number, error: unknown) =>
    send({ op: 'failed', id, error: serializeError(error) });
  const answer = (id: number, work: Promise<unknown>) =>
    work.then(
      (result) => {
        try {
          send({ op: 'done', id, ...(result ? { result: result as never } : {}) });
        } catch (error) {
          // A value that cannot be cloned fails its call, not the thread.
          fail(id, error);
        }
      },
      (error: unknown) => fail(id, error),
    );

  /** Thrown inside the transaction to roll it back; the parent has the reason. */
  const ROLLBACK = new Error('rolled back by the caller');

  /** Opens transaction `id` and holds it open until `end` names it. */
  const begin = (id: number) => {
    let opened = false;
    const held: { outcome?: Promise<void> } = {};
    held.outcome = db.transaction(
      (tx) =>
        new Promise<void>((resolve, reject) => {
          opened = true;
          const end = (commit: boolean) => (commit ? resolve() : reject(ROLLBACK));
          // Set by now: the driver queues every call, so this runs after `begin` returned.
          transactions.set(id, { tx, end, outcome: held.outcome! });
          send({ op: 'opened', id });
        }),
    );
    held.outcome
      .catch((error: unknown) => {
        if (!opened) fail(id, error);
      })
      .finally(() => transactions.delete(id));
  };

  port.on('message', (message: ToThread) => {
    switch (message.op) {
      case 'query':
        void answer(message.id, db.query(message.text, message.params));
        return;
      case 'begin':
        begin(message.id);
        return;
      case 'tx-query': {
        const open = transactions.get(message.tx);
        void answer(
          message.id,
          open
            ? open.tx.query(message.text, message.params)
            : Promise.reject(new Error('the transaction has ended')),
        );
        return;
      }
      case 'end': {
        const open = transactions.get(message.tx);
        open?.end(message.commit);
        void answer(
          message.id,
          open ? open.outcome : Promise.reject(new Error('the transaction has ended')),
        );
        return;
      }
      case 'listen': {
        const subscription = message.id;
        void answer(
          message.id,
          db
            .listen(message.channel, (payload) =>
              send({ op: 'notification', subscription, payload }),
            )
            .then((unlisten) => void subscriptions.set(subscription, unlisten)),
        );
        return;
      }
      case 'unlisten': {
        const unlisten = subscriptions.get(message.subscription);
        subscriptions.delete(message.subscription);
        void answer(message.id, unlisten ? unlisten() : Promise.resolve());
        return;
      }
      case 'close':
        void answer(message.id, db.close());
        return;
    }
  });
  send({ op: 'ready' });
} catch (error) {
  send({ op: 'open-failed', error: serializeError(error) });
}

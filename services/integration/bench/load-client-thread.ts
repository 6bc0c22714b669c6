/**
 * `load-client.ts` on a worker thread: the bench sends it one `LoadCommand` at a time and
 * gets back the accepted records (sent on at the end of each turn of this thread's loop,
 * so the bench learns a record's id within a turn of its answer: the table is polled
 * for the ids it knows) and, last, `{ done }` or `{ error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  createLoadClient,
  type AcceptedRecord,
  type LoadClientOptions,
  type LoadCommand,
} from './load-client.js';
import { perTurn } from './turn-batches.js';

export type FromLoadThread = { accepted: AcceptedRecord[] } | { done: true } | { error: string };

const client = createLoadClient(workerData as LoadClientOptions);
const port = parentPort!;
const accepted = perTurn<AcceptedRecord>((records) =>
  port.postMessage({ accepted: records } satisfies FromLoadThread),
);

port.on('message', (command: LoadCommand | 'close') => {
  if (command === 'close') {
    client.close();
    port.close();
    return;
  }
  client.run(command, accepted.add).then(
    () => {
      accepted.flush();
      port.postMessage({ done: true } satisfies FromLoadThread);
    },
    (error: unknown) => {
      accepted.flush();
      port.postMessage({
        error: String((error as Error)?.stack ?? error),
      } satisfies FromLoadThread);
    },
  );
});

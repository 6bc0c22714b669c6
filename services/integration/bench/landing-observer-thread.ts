/**
 * `landing-observer.ts` on a worker thread: started with its options as `workerData`, it
 * answers `{ ready: webhookUrl }`, takes `{ watch: ids }` (the table's ids to look for)
 * and `'close'`, and sends the landings it sees at the end of each turn of this thread's
 * loop (`{ landed }`), or `{ error }` when it fails.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  startLandingObserver,
  type Landing,
  type LandingObserverOptions,
} from './landing-observer.js';
import { perTurn } from './turn-batches.js';

export type ToObserverThread = { watch: string[] } | 'close';
export type FromObserverThread =
  { ready: string } | { landed: Landing[] } | { closed: true } | { error: string };

const port = parentPort!;
const send = (message: FromObserverThread) => port.postMessage(message);
const landed = perTurn<Landing>((landings) => send({ landed: landings }));

try {
  const observer = await startLandingObserver(workerData as LandingObserverOptions, landed.add);
  port.on('message', (message: ToObserverThread) => {
    if (message !== 'close') return observer.watch(message.watch);
    observer.close().then(
      () => {
        landed.flush();
        send({ closed: true });
        port.close();
      },
      (error: unknown) => send({ error: String((error as Error)?.stack ?? error) }),
    );
  });
  send({ ready: observer.webhookUrl });
} catch (error) {
  send({ error: String((error as Error)?.stack ?? error) });
}

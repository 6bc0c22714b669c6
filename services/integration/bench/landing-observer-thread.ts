/**
 * `landing-observer.ts` on a worker thread. Started with `ObserverThreadData`, it answers
 * `{ ready: webhookUrl }`; the load client's reports come straight from the client's
 * thread on `reports` (or from the bench, for clients on its loop), and the bench asks
 * for a phase's figures with `{ settle }`, answered `{ settled }` with the same id. On
 * PGlite the bench polls the table itself: this thread sends it the ids to look for
 * (`{ watchTable }`, at the end of each turn of this thread's loop) and gets what it saw
 * as `{ landed }`. `'close'` ends it with `{ closed: true }`; a failure is `{ error }`.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import {
  startLandingObserver,
  type Landing,
  type LandingObserverOptions,
  type PhaseLandings,
  type SettleRequest,
} from './landing-observer.js';
import type { AcceptedRecord } from './load-client.js';
import { perTurn } from './turn-batches.js';

export interface ObserverThreadData {
  options: LandingObserverOptions;
  /** Where the load client reports what it had answered (transferred). */
  reports: MessagePort;
}

/** A load client's report: the records it had answered in `phase`. */
export interface AcceptedReport {
  phase: string;
  accepted: AcceptedRecord[];
}

export type ToObserverThread =
  AcceptedReport | { landed: Landing[] } | { settle: SettleRequest; id: number } | 'close';
export type FromObserverThread =
  | { ready: string }
  | { watchTable: string[] }
  | { settled: number; figures: PhaseLandings }
  | { settled: number; error: string }
  | { closed: true }
  | { error: string };

const port = parentPort!;
const { options, reports } = workerData as ObserverThreadData;
const send = (message: FromObserverThread) => port.postMessage(message);
const errorText = (error: unknown) => String((error as Error)?.stack ?? error);
const watchTable = perTurn<string>((ids) => send({ watchTable: ids }));

try {
  const observer = await startLandingObserver(options, watchTable.add);
  reports.on('message', (report: AcceptedReport) =>
    observer.accepted(report.phase, report.accepted),
  );
  port.on('message', (message: ToObserverThread) => {
    if (message === 'close') {
      reports.close();
      observer.close().then(
        () => {
          send({ closed: true });
          port.close();
        },
        (error: unknown) => send({ error: errorText(error) }),
      );
    } else if ('accepted' in message) observer.accepted(message.phase, message.accepted);
    else if ('landed' in message) observer.landed(message.landed);
    else
      observer.settle(message.settle).then(
        (figures) => send({ settled: message.id, figures }),
        (error: unknown) => send({ settled: message.id, error: errorText(error) }),
      );
  });
  send({ ready: observer.webhookUrl });
} catch (error) {
  send({ error: errorText(error) });
}

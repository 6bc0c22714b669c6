/**
 * `load-client.ts` on a worker thread. Started with `LoadThreadData`, it takes one
 * `PhaseCommand` at a time, reports the records it had answered straight to the landing
 * observer on `reports` (at the end of each turn of this thread's loop, so the observer
 * learns a record's id within a turn of its answer: the table is polled for the ids it
 * knows), and answers the bench `{ done: accepted }` or `{ error }`.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { createLoadClient, type LoadClientOptions, type LoadCommand } from './load-client.js';
import { reportingRuns } from './phase-reports.js';

export interface LoadThreadData {
  options: LoadClientOptions;
  /** The landing observer's end of a channel (transferred). */
  reports: MessagePort;
}

/** A command and the phase its records belong to. */
export interface PhaseCommand {
  phase: string;
  command: LoadCommand;
}

/** `done`: how many records the command had answered, all reported before it. */
export type FromLoadThread = { done: number } | { error: string };

const { options, reports } = workerData as LoadThreadData;
const client = createLoadClient(options);
const run = reportingRuns(client, reports);
const port = parentPort!;

port.on('message', (message: PhaseCommand | 'close') => {
  if (message === 'close') {
    client.close();
    reports.close();
    port.close();
    return;
  }
  run(message.phase, message.command).then(
    (count) => port.postMessage({ done: count } satisfies FromLoadThread),
    (error: unknown) =>
      port.postMessage({
        error: String((error as Error)?.stack ?? error),
      } satisfies FromLoadThread),
  );
});

/**
 * How a load client's answered records reach the landing observer: tagged with the
 * phase they belong to and sent on a port once a turn of the sending loop (`perTurn`),
 * all of a command's sent before its run resolves. Used alike by the client on its own
 * thread (`load-client-thread.ts`) and on the platform's loop (`BENCH_CLIENT=inline`).
 */
import type { MessagePort } from 'node:worker_threads';
import type { AcceptedReport } from './landing-observer-thread.js';
import type { AcceptedRecord, LoadClient, LoadCommand } from './load-client.js';
import { perTurn } from './turn-batches.js';

/** Runs a command as `phase`'s records, reporting them on `reports`; resolves to how many were answered. */
export type PhaseRun = (phase: string, command: LoadCommand) => Promise<number>;

export function reportingRuns(client: LoadClient, reports: MessagePort): PhaseRun {
  let phase = '';
  const accepted = perTurn<AcceptedRecord>((records) =>
    reports.postMessage({ phase, accepted: records } satisfies AcceptedReport),
  );
  return async (name, command) => {
    phase = name;
    let count = 0;
    await client
      .run(command, (records) => {
        count += records.length;
        accepted.add(records);
      })
      .finally(() => accepted.flush());
    return count;
  };
}

/**
 * The main thread's side of an adapter role run in a worker thread: starts the thread
 * and waits for its adapter to be consuming (or for its start to fail, which rejects as
 * the start on the main thread would), forwards refreshes, and stops it gracefully.
 *
 * A thread that ends without being asked to (an uncaught error, an out-of-memory, a
 * `terminate()`) is a crash: `onCrash` is called once with the role. The platform's
 * decision (README, "Adapter threads") is that the process then exits non-zero, as a
 * crashed role process would, for its supervisor to restart it; the role's position is
 * in its target and the broker, so nothing is lost or applied twice.
 */
import type { Worker } from 'node:worker_threads';
import { startTypeScriptWorker } from '@platform/core';
import type { AdapterRole } from '../adapter-roles.js';
import type { FromRoleThread, RoleThreadData, ToRoleThread } from './role-thread-protocol.js';

/** A thread's start failed; `unavailable` names a dependency that was not there (retried by `main`). */
export class RoleThreadStartError extends Error {
  constructor(
    message: string,
    readonly unavailable: string | undefined,
  ) {
    super(message);
    this.name = 'RoleThreadStartError';
  }
}

export interface RoleThread {
  readonly role: AdapterRole;
  readonly type: string;
  readonly consumerGroup: string;
  /** The admin API's URL, served from the thread. */
  readonly url: string;
  /** The thread's `threadId` (as its adapter's `/health` reports it). */
  readonly threadId: number;
  /** The thread itself (tests end it to show what a crash does). */
  readonly worker: Worker;
  /** Re-registers the adapter type and reloads attachments now (`AdapterRuntime.refresh`). */
  refresh(): Promise<void>;
  /**
   * Stops the adapter (its in-flight batch finishes), closes the thread's engines and
   * waits for the thread to end; one that does not end within `timeoutMs` is terminated.
   */
  stop(timeoutMs?: number): Promise<void>;
  /** The thread's exit code, once it ended. */
  readonly exited: Promise<number>;
}

/** The thread's module: `startRoleThread`'s default entry. */
export const ROLE_THREAD_ENTRY = new URL('./role-thread.ts', import.meta.url);

/** Long enough for a batch in flight and the engines' close; within `handleShutdown`'s 15 s. */
const STOP_TIMEOUT_MS = 10_000;
/** After `stopped`, the thread has nothing left to run; a handle that keeps it is cut. */
const EXIT_GRACE_MS = 2_000;

export function startRoleThread(
  data: RoleThreadData,
  onCrash: (role: AdapterRole, error: Error) => void,
  entry: URL = ROLE_THREAD_ENTRY,
): Promise<RoleThread> {
  const worker = startTypeScriptWorker(entry, { workerData: data });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let stopping = false;
  let stopped = false;
  let crashed = false;
  let crashError: Error | undefined;
  let nextId = 0;
  const refreshes = new Map<number, { resolve(): void; reject(error: Error): void }>();
  const send = (message: ToRoleThread) => worker.postMessage(message);
  let markStopped = () => {};
  const stoppedSignal = new Promise<void>((resolve) => (markStopped = resolve));

  return new Promise<RoleThread>((resolveStart, rejectStart) => {
    let started = false;
    worker.on('error', (error) => {
      crashError = error;
    });
    worker.once('exit', (code) => {
      for (const pending of refreshes.values())
        pending.reject(new Error(`the ${data.role} thread ended`));
      refreshes.clear();
      if (!started) {
        rejectStart(
          crashError ??
            new RoleThreadStartError(`the ${data.role} thread ended (code ${code})`, undefined),
        );
        return;
      }
      // Ending while asked to stop is not a crash: `stop()` reports a thread that hung.
      if (!stopping) {
        crashed = true;
        onCrash(
          data.role,
          crashError ?? new Error(`the ${data.role} thread ended with exit code ${code}`),
        );
      }
    });
    worker.on('message', (message: FromRoleThread) => {
      switch (message.type) {
        case 'failed':
          started = true; // rejected here, not by the exit that follows
          rejectStart(new RoleThreadStartError(message.message, message.unavailable));
          return;
        case 'refreshed': {
          const pending = refreshes.get(message.id);
          refreshes.delete(message.id);
          if (message.error === undefined) pending?.resolve();
          else pending?.reject(new Error(message.error));
          return;
        }
        case 'stopped':
          stopped = true;
          markStopped();
          return;
        case 'ready':
          started = true;
          resolveStart({
            role: data.role,
            type: message.adapterType,
            consumerGroup: message.consumerGroup,
            url: message.url,
            threadId: worker.threadId,
            worker,
            exited,
            refresh: () =>
              new Promise<void>((resolve, reject) => {
                const id = nextId++;
                refreshes.set(id, { resolve, reject });
                send({ type: 'refresh', id });
              }),
            async stop(timeoutMs = STOP_TIMEOUT_MS) {
              // A thread that crashed has nothing left to stop (its crash was reported).
              if (crashed) return;
              if (!stopping) {
                stopping = true;
                send({ type: 'stop' });
              }
              const outcome = await within(
                Promise.race([exited.then(() => 'exited'), stoppedSignal.then(() => 'stopped')]),
                timeoutMs,
              );
              // Stopped: the thread ends by itself; the grace only bounds a handle left open.
              if (outcome === 'stopped' && (await within(exited, EXIT_GRACE_MS)) === undefined)
                await worker.terminate();
              if (outcome === undefined) await worker.terminate();
              if (!stopped)
                throw new Error(`the ${data.role} thread did not stop within ${timeoutMs} ms`);
            },
          });
      }
    });
  });
}

/** `promise`'s value, or undefined when it did not settle within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

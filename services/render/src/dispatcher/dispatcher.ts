/**
 * Dispatcher: moves each outbox event to the task queue exactly once. Woken by
 * LISTEN/NOTIFY when a job is written, and by polling in case a notification is missed.
 * A batch is claimed (SKIP LOCKED), each event enqueued under its own id (the queue
 * drops a repeat), then acknowledged. Killed at any point: an unacknowledged event's
 * claim expires and another dispatcher enqueues it again, which the queue ignores.
 * A failed enqueue releases the event with a growing delay.
 */
import { randomUUID } from 'node:crypto';
import type { Logger, SqlDatabase, Unlisten } from '@platform/core';
import { OUTBOX_CHANNEL } from '../jobs/job-store.js';
import type { TaskQueue } from '../queue/task-queue.js';
import { acknowledgeEvent, claimEvents, releaseEvent } from './outbox-store.js';

export interface DispatcherOptions {
  /** @defaultValue a random id */
  id?: string;
  /** Poll period when no notification comes. @defaultValue 1000 */
  pollMs?: number;
  /** @defaultValue 50 */
  batchSize?: number;
  /** How long a claim holds before another dispatcher may take the event. @defaultValue 30 */
  claimSeconds?: number;
  /** Delay before retrying a failed enqueue, times the attempt number, capped at 60 s. @defaultValue 2 */
  retryDelaySeconds?: number;
  /** Test hook: called between the steps of one event; throwing there simulates a crash. */
  onStep?: (step: 'claimed' | 'enqueued', eventId: string) => void;
}

export interface Dispatcher {
  readonly id: string;
  /** One claim-enqueue-acknowledge pass; returns how many events were dispatched. */
  runOnce(): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createDispatcher(
  db: SqlDatabase,
  queue: TaskQueue,
  logger: Logger,
  options: DispatcherOptions = {},
): Dispatcher {
  const id = options.id ?? `dispatcher-${randomUUID()}`;
  const pollMs = options.pollMs ?? 1000;
  const batchSize = options.batchSize ?? 50;
  const claimSeconds = options.claimSeconds ?? 30;
  const retryDelay = options.retryDelaySeconds ?? 2;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: Unlisten | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let stopping = false;

  async function runOnce(): Promise<number> {
    let dispatched = 0;
    for (;;) {
      const events = await claimEvents(db, id, batchSize, claimSeconds);
      for (const event of events) {
        options.onStep?.('claimed', event.id);
        try {
          await queue.enqueue({ jobId: event.job_id, eventId: event.id });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          logger.warn(
            { err: error, eventId: event.id },
            'enqueue failed; event released for retry',
          );
          await releaseEvent(db, event.id, id, Math.min(60, retryDelay * event.attempts), message);
          continue;
        }
        options.onStep?.('enqueued', event.id);
        if (await acknowledgeEvent(db, event.id, id)) dispatched += 1;
      }
      if (events.length < batchSize || stopping) return dispatched;
    }
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await runOnce();
        } catch (error) {
          logger.error({ err: error }, 'dispatch pass failed');
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
  }

  return {
    id,
    runOnce,
    async start() {
      stopped = false;
      stopping = false;
      if (db.supportsListenNotify) unlisten = await db.listen(OUTBOX_CHANNEL, () => kick());
      timer = setInterval(kick, pollMs);
      timer.unref();
      kick();
    },
    async stop() {
      stopped = true;
      stopping = true;
      clearInterval(timer);
      await unlisten?.().catch(() => undefined);
      await running;
    },
  };
}

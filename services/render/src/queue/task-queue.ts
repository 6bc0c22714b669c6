/**
 * The render task queue: what the dispatcher feeds and workers take. Two drivers behind
 * this contract: BullMQ on Redis (shared by every machine) and an in-process queue.
 */
export interface RenderTask {
  jobId: string;
  /** The outbox event this task was made from; adding the same event twice adds one task. */
  eventId: string;
}

export type TaskHandler = (task: RenderTask) => Promise<void>;

export interface TaskConsumer {
  /** Stops taking tasks and waits for the running ones. */
  close(): Promise<void>;
}

export interface TaskQueue {
  /** `memory` or `bullmq`: for health output and logs, never for branching. */
  readonly driver: string;
  /** Tasks survive this process (Redis); false for the in-process queue. */
  readonly durable: boolean;
  /** Adds a task; idempotent per `eventId`. */
  enqueue(task: RenderTask): Promise<void>;
  /** Runs `handler` for each task, `concurrency` at a time. A handler that throws does not retry the task. */
  consume(handler: TaskHandler, options: { concurrency: number }): TaskConsumer;
  /** Tasks added and not yet taken. */
  waiting(): Promise<number>;
  /**
   * Which of the given events still have a task in this queue, waiting or being run.
   * An event missing from the answer has no task any more (done, failed, or lost with
   * a process or a Redis key): the reaper dispatches its job again.
   */
  inQueue(eventIds: readonly string[]): Promise<Set<string>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

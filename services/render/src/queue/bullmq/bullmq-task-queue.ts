/**
 * BullMQ task queue on Redis: every dispatcher and worker on every machine shares it.
 * The BullMQ job id is `evt-<eventId>`, so adding an event twice (a dispatcher killed
 * between enqueue and its acknowledgement) leaves one task. Finished tasks are kept a
 * day so a late duplicate is still recognised. A worker that dies holding a task lets
 * BullMQ's stall detection hand it to another worker.
 */
import type { Logger } from '@platform/core';
import { Queue, Worker } from 'bullmq';
import type { RenderTask, TaskConsumer, TaskHandler, TaskQueue } from '../task-queue.js';

export interface BullmqQueueOptions {
  redisUrl: string;
  /** Redis key prefix. */
  prefix: string;
  logger?: Logger | undefined;
}

const QUEUE_NAME = 'render-tasks';
/** BullMQ states in which a task will still be, or is being, run. */
const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);
const KEEP_SECONDS = 24 * 3600;

export class BullmqTaskQueue implements TaskQueue {
  readonly driver = 'bullmq';
  readonly durable = true;
  private readonly queue: Queue<RenderTask>;
  private readonly workers = new Set<Worker<RenderTask>>();

  constructor(private readonly options: BullmqQueueOptions) {
    this.queue = new Queue<RenderTask>(QUEUE_NAME, {
      connection: this.connection(),
      prefix: options.prefix,
    });
    this.queue.on('error', (error) => options.logger?.error({ err: error }, 'render queue error'));
  }

  private connection() {
    return { url: this.options.redisUrl, maxRetriesPerRequest: null };
  }

  async enqueue(task: RenderTask): Promise<void> {
    await this.queue.add(
      'render',
      { jobId: task.jobId, eventId: task.eventId },
      {
        jobId: `evt-${task.eventId}`,
        attempts: 1,
        removeOnComplete: { age: KEEP_SECONDS },
        removeOnFail: { age: KEEP_SECONDS },
      },
    );
  }

  consume(handler: TaskHandler, { concurrency }: { concurrency: number }): TaskConsumer {
    const worker = new Worker<RenderTask>(QUEUE_NAME, async (job) => handler(job.data), {
      connection: this.connection(),
      prefix: this.options.prefix,
      concurrency: Math.max(1, concurrency),
      lockDuration: 60_000,
      stalledInterval: 30_000,
    });
    worker.on('error', (error) =>
      this.options.logger?.error({ err: error }, 'render queue worker error'),
    );
    worker.on('failed', (job, error) =>
      this.options.logger?.error({ err: error, task: job?.data }, 'render task handler failed'),
    );
    this.workers.add(worker);
    return {
      close: async () => {
        this.workers.delete(worker);
        await worker.close();
      },
    };
  }

  async waiting(): Promise<number> {
    return this.queue.getWaitingCount();
  }

  async inQueue(eventIds: readonly string[]): Promise<Set<string>> {
    const states = await Promise.all(eventIds.map((id) => this.queue.getJobState(`evt-${id}`)));
    return new Set(eventIds.filter((_, i) => LIVE_STATES.has(states[i]!)));
  }

  /** Removes the task of an event, as a lost Redis key would (tests). */
  async forget(eventId: string): Promise<void> {
    await this.queue.remove(`evt-${eventId}`);
  }

  /** Every BullMQ job ever added for the given event ids still kept (tests, diagnostics). */
  async countTasks(): Promise<number> {
    const counts = await this.queue.getJobCounts(
      'waiting',
      'active',
      'completed',
      'failed',
      'delayed',
      'prioritized',
    );
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async ping(): Promise<void> {
    // A round trip to Redis: fails when it cannot be reached.
    await this.queue.waitUntilReady();
    await this.queue.getWaitingCount();
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.close()));
    await this.queue.close();
  }

  /** Removes every key of this queue (tests). */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }
}

/**
 * In-process task queue: a FIFO in this process's memory, for the embedded default. Tasks
 * do not survive the process; the reaper re-dispatches queued jobs whose task was lost.
 */
import type { Logger } from '@platform/core';
import type { RenderTask, TaskConsumer, TaskHandler, TaskQueue } from '../task-queue.js';

export class MemoryTaskQueue implements TaskQueue {
  readonly driver = 'memory';
  readonly durable = false;
  private readonly tasks: RenderTask[] = [];
  private readonly seen = new Set<string>();
  /** Events whose task waits or runs. */
  private readonly live = new Set<string>();
  private readonly wakers = new Set<() => void>();
  private closed = false;

  constructor(private readonly logger?: Logger) {}

  async enqueue(task: RenderTask): Promise<void> {
    if (this.closed) throw new Error('queue is closed');
    if (this.seen.has(task.eventId)) return;
    this.seen.add(task.eventId);
    this.live.add(task.eventId);
    this.tasks.push({ ...task });
    for (const wake of this.wakers) wake();
  }

  consume(handler: TaskHandler, { concurrency }: { concurrency: number }): TaskConsumer {
    let stopped = false;
    const loops = Array.from({ length: Math.max(1, concurrency) }, async () => {
      while (!stopped) {
        const task = this.tasks.shift();
        if (!task) {
          let wake: () => void = () => undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            this.wakers.add(resolve);
          });
          this.wakers.delete(wake);
          continue;
        }
        try {
          await handler(task);
        } catch (error) {
          this.logger?.error({ err: error, task }, 'render task handler failed');
        } finally {
          this.live.delete(task.eventId);
        }
      }
    });
    return {
      close: async () => {
        stopped = true;
        for (const w of [...this.wakers]) w();
        await Promise.all(loops);
      },
    };
  }

  async waiting(): Promise<number> {
    return this.tasks.length;
  }

  async inQueue(eventIds: readonly string[]): Promise<Set<string>> {
    return new Set(eventIds.filter((id) => this.live.has(id)));
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('queue is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of [...this.wakers]) w();
  }
}

/** Picks the queue driver: BullMQ when a Redis URL is given, else in-process. */
import type { Logger } from '@platform/core';
import { BullmqTaskQueue } from './bullmq/bullmq-task-queue.js';
import { MemoryTaskQueue } from './memory/memory-task-queue.js';
import type { TaskQueue } from './task-queue.js';

export interface TaskQueueOptions {
  /** Redis shared by every machine. @defaultValue undefined (in-process queue) */
  redisUrl?: string | undefined;
  /** BullMQ key prefix. @defaultValue `render` */
  prefix?: string;
  logger?: Logger;
}

export function createTaskQueue(options: TaskQueueOptions = {}): TaskQueue {
  return options.redisUrl
    ? new BullmqTaskQueue({
        redisUrl: options.redisUrl,
        prefix: options.prefix ?? 'render',
        logger: options.logger,
      })
    : new MemoryTaskQueue(options.logger);
}

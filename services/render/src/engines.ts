/**
 * Opens the engines the environment asks for (core's `open…` helpers): PostgreSQL or
 * PGlite under `DATA_DIR/render/`, S3 or files under `DATA_DIR/render/objects`, Redis or
 * memory counters; plus the task queue, BullMQ on Redis or in-process.
 */
import {
  openCounterStore,
  openObjectStore,
  openSqlDatabase,
  type CounterStore,
  type Logger,
  type ObjectStore,
  type SqlDatabase,
} from '@platform/core';
import type { RenderEnv } from './config.js';
import { migrateRenderDatabase } from './migrations.js';
import { createTaskQueue } from './queue/create-task-queue.js';
import type { TaskQueue } from './queue/task-queue.js';

export interface RenderEngines {
  db: SqlDatabase;
  store: ObjectStore;
  counters: CounterStore;
  queue: TaskQueue;
  close(): Promise<void>;
}

export async function openEngines(env: RenderEnv, logger: Logger): Promise<RenderEngines> {
  const db = await openSqlDatabase(env, 'render', logger);
  await migrateRenderDatabase(db);
  const store = openObjectStore(env, 'render');
  const counters = openCounterStore(env, env.REDIS_KEY_PREFIX);
  const queue = createTaskQueue({ redisUrl: env.REDIS_URL, prefix: env.REDIS_KEY_PREFIX, logger });
  return {
    db,
    store,
    counters,
    queue,
    async close() {
      await queue.close();
      await counters.close();
      await store.close();
      await db.close();
    },
  };
}

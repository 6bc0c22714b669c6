/**
 * Opens the engines the environment asks for (core's `open…` helpers): PostgreSQL or
 * PGlite under `DATA_DIR/render/`, S3 or files under `DATA_DIR/render/objects`, Redis or
 * memory counters; plus the task queue, BullMQ on Redis or in-process. A database that is
 * unreachable, or lost during the migrations, is waited for (core's `waitForDependency`);
 * a configuration error (a database that does not exist, a migration's SQL) is thrown.
 */
import {
  openCounterStore,
  openObjectStore,
  openSqlDatabase,
  type CounterStore,
  type Logger,
  type ObjectStore,
  type SqlDatabase,
  waitForDependency,
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
  const db = await waitForDependency(
    'opening the database and applying its migrations',
    async () => {
      const opened = await openSqlDatabase(env, 'render', logger);
      try {
        await migrateRenderDatabase(opened);
        return opened;
      } catch (error) {
        // The next attempt opens afresh: nothing of a half-failed one is kept.
        await opened.close().catch(() => undefined);
        throw error;
      }
    },
    { logger },
  );
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

/**
 * Opens the engines the environment asks for: PostgreSQL or PGlite under
 * `DATA_DIR/render/db`, S3 or files under `DATA_DIR/render/objects`, Redis or memory
 * counters, BullMQ or the in-process queue.
 */
import { join } from 'node:path';
import { createSqlDatabase, s3Configured, type CounterStore, type Logger, type ObjectStore, type SqlDatabase } from '@platform/core';
import type { RenderEnv } from './config.js';
import { createCounterStore, createObjectStore } from './core-ext.js';
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
  const db = await createSqlDatabase({ url: env.DATABASE_URL, dataDir: join(env.DATA_DIR, 'render', 'db'), logger });
  await migrateRenderDatabase(db);
  const store = createObjectStore(
    s3Configured(env)
      ? {
          s3: {
            bucket: env.S3_BUCKET ?? 'render',
            ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
            region: env.S3_REGION,
            ...(env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
              ? { credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } }
              : {}),
            forcePathStyle: env.S3_FORCE_PATH_STYLE,
            createBucket: true,
          },
        }
      : {
          fs: {
            root: join(env.DATA_DIR, 'render', 'objects'),
            ...(env.SIGNING_SECRET ? { signingSecret: env.SIGNING_SECRET } : {}),
            ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL } : {}),
          },
        },
  );
  const counters = createCounterStore(env.REDIS_URL ? { redisUrl: env.REDIS_URL, keyPrefix: 'render:counters:' } : {});
  const queue = createTaskQueue({ redisUrl: env.REDIS_URL, prefix: 'render', logger });
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

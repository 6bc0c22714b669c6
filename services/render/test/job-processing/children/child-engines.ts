/** Engines of a child process in the kill tests, from the env its parent sets. */
import { createLogger, createSqlDatabase } from '@platform/core';
import { createObjectStore } from '@platform/core';
import { createTaskQueue } from '../../../src/queue/create-task-queue.js';

export async function childEngines() {
  const env = process.env;
  const logger = createLogger({ service: 'render-child', level: 'silent' });
  const db = await createSqlDatabase({ url: env.DATABASE_URL!, dataDir: '', poolSize: 4 });
  const queue = createTaskQueue({ redisUrl: env.REDIS_URL!, prefix: env.QUEUE_PREFIX!, logger });
  const store = createObjectStore({
    s3: {
      bucket: env.S3_BUCKET!,
      endpoint: env.S3_ENDPOINT!,
      region: 'us-east-1',
      credentials: {
        accessKeyId: env.S3_ACCESS_KEY_ID!,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
      },
      forcePathStyle: true,
    },
  });
  return { db, queue, store, logger };
}

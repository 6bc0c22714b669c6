/**
 * The engines a service runs on, chosen from the environment (design.md): PostgreSQL,
 * S3 and Redis when configured, else PGlite, files and memory under
 * `DATA_DIR/<service>/`. Services call these once in `main.ts` and pass the handles down.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load-config.js';
import { s3Configured, type CoreEnv } from '../config/core-env.js';
import type { CounterStore } from '../counters/counter-store.js';
import { createCounterStore } from '../counters/create-counter-store.js';
import { createSqlDatabase } from '../sql/create-sql-database.js';
import type { SqlDatabase } from '../sql/sql-database.js';
import { createObjectStore } from '../storage/create-object-store.js';
import type { ObjectStore } from '../storage/object-store.js';

export function serviceDataDir(env: Pick<CoreEnv, 'DATA_DIR'>, service: string): string {
  return join(env.DATA_DIR, service);
}

export function openSqlDatabase(
  env: CoreEnv,
  service: string,
  logger?: Logger,
): Promise<SqlDatabase> {
  return createSqlDatabase({
    url: env.DATABASE_URL,
    dataDir: join(serviceDataDir(env, service), 'pglite'),
    thread: env.PGLITE_THREAD,
    ...(logger ? { logger } : {}),
  });
}

export function openObjectStore(env: CoreEnv, service: string): ObjectStore {
  if (s3Configured(env)) {
    if (!env.S3_BUCKET)
      throw new ConfigError('S3_BUCKET', 'expected a bucket name when S3_ENDPOINT is set');
    const credentials =
      env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
        : undefined;
    return createObjectStore({
      s3: {
        bucket: env.S3_BUCKET,
        region: env.S3_REGION,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
        createBucket: true,
        ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
        ...(credentials ? { credentials } : {}),
      },
    });
  }
  const root = join(serviceDataDir(env, service), 'objects');
  return createObjectStore({
    fs: {
      root,
      signingSecret:
        env.SIGNING_SECRET ??
        persistentSecret(join(serviceDataDir(env, service), 'signing-secret')),
      ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL } : {}),
    },
  });
}

export function openCounterStore(env: CoreEnv, service: string): CounterStore {
  return createCounterStore({
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    keyPrefix: `${service}:counters:`,
  });
}

/** A secret made once and kept beside the data, so signed URLs survive a restart. */
function persistentSecret(path: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dirname(path), { recursive: true });
  // Written aside and linked into place: two instances starting at once on a fresh data
  // folder agree on the first one's secret, and neither ever reads a half-written file.
  const secret = randomBytes(32).toString('hex');
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, secret, { mode: 0o600 });
  try {
    linkSync(temp, path);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(path, 'utf8').trim();
  } finally {
    unlinkSync(temp);
  }
}

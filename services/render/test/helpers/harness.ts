/**
 * Test harness: a render context on one of two engine sets, and multipart helpers.
 * - `embedded`: PGlite in memory, memory counters, filesystem storage in a temp folder;
 * - `real`: a fresh PostgreSQL database, Redis counters (unique key prefix), an S3-protocol
 *   server (s3rver). `engineSets()` reports which are available, skipping loudly.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createClientAddressResolver,
  createLogger,
  createSqlDatabase,
  type ObjectStore,
  type SqlDatabase,
} from '@platform/core';
import {
  createTestDatabase,
  postgresUrlForTests,
  redisUrlForTests,
  skipReason,
  startS3Server,
} from '@platform/testing';
import { DEFAULT_SETTINGS, type RenderSettings } from '../../src/config.js';
import { createRenderContext, type RenderContext } from '../../src/context.js';
import { createCounterStore, createObjectStore } from '@platform/core';
import { migrateRenderDatabase } from '../../src/migrations.js';

export type EngineSet = 'embedded' | 'real';

export interface TestEngines {
  kind: EngineSet;
  ctx: RenderContext;
  redisUrl?: string | undefined;
  databaseUrl?: string | undefined;
  keyPrefix: string;
  /**
   * The rate-limit counters' clock, Unix ms: pinned one second into a minute for the
   * harness's life, so a limit test never sees its window end when a minute turns.
   */
  counterClockMs: number;
  /** The S3-protocol server of the real engine set. */
  s3?:
    { endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string } | undefined;
  close(): Promise<void>;
}

let realAvailable: Promise<{ pg?: string; redis?: string }> | undefined;
function probeReal() {
  realAvailable ??= (async () => {
    const [pg, redis] = await Promise.all([postgresUrlForTests(), redisUrlForTests()]);
    return { ...(pg ? { pg } : {}), ...(redis ? { redis } : {}) };
  })();
  return realAvailable;
}

/** The engine sets to loop over, with a node:test skip reason for the absent one. */
export async function engineSets(): Promise<{ kind: EngineSet; skip: string | undefined }[]> {
  const real = await probeReal();
  return [
    { kind: 'embedded', skip: undefined },
    {
      kind: 'real',
      skip: skipReason(
        'PostgreSQL + Redis (render real-engine tests)',
        Boolean(real.pg && real.redis),
      ),
    },
  ];
}

export const quietLogger = createLogger({
  service: 'render-test',
  level: (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent',
});

export async function openTestEngines(
  kind: EngineSet,
  settings: Partial<RenderSettings> = {},
  options: { store?: (inner: ObjectStore) => ObjectStore } = {},
): Promise<TestEngines> {
  const merged: RenderSettings = { ...DEFAULT_SETTINGS, ...settings };
  const keyPrefix = `render-test-${randomBytes(5).toString('hex')}:`;
  const closers: (() => Promise<unknown>)[] = [];
  let db: SqlDatabase;
  let store: ObjectStore;
  let redisUrl: string | undefined;
  let databaseUrl: string | undefined;
  let s3Info: TestEngines['s3'];
  if (kind === 'embedded') {
    db = await createSqlDatabase({ dataDir: 'memory://' });
    const dir = await mkdtemp(join(tmpdir(), 'render-store-'));
    store = createObjectStore({ fs: { root: dir, signingSecret: 'test-secret-test-secret' } });
    closers.push(() => rm(dir, { recursive: true, force: true }));
  } else {
    const real = await probeReal();
    const testDb = await createTestDatabase('render');
    databaseUrl = testDb.url;
    db = await createSqlDatabase({ url: testDb.url, dataDir: '', poolSize: 20 });
    closers.push(() => testDb.drop());
    const s3 = await startS3Server();
    s3Info = s3;
    closers.push(() => s3.stop());
    store = createObjectStore({
      s3: {
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        region: s3.region,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        forcePathStyle: true,
      },
    });
    redisUrl = real.redis;
  }
  const counterClockMs = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
  const now = () => counterClockMs;
  const counters = createCounterStore(redisUrl ? { redisUrl, keyPrefix, now } : { now });
  await migrateRenderDatabase(db);
  const wrapped = options.store ? options.store(store) : store;
  const ctx = createRenderContext({
    db,
    store: wrapped,
    counters,
    settings: merged,
    logger: quietLogger,
    clientAddress: createClientAddressResolver({}),
  });
  return {
    kind,
    ctx,
    redisUrl,
    databaseUrl,
    keyPrefix,
    counterClockMs,
    s3: s3Info,
    async close() {
      await ctx.close().catch(() => undefined);
      await counters.close().catch(() => undefined);
      await store.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      for (const close of closers.reverse()) await close().catch(() => undefined);
    },
  };
}

/** A store passing every call to `inner` except the ones overridden (to inject faults). */
export function delegatingStore(inner: ObjectStore, overrides: Partial<ObjectStore>): ObjectStore {
  return {
    driver: inner.driver,
    put: (...a) => inner.put(...a),
    get: (...a) => inner.get(...a),
    stream: (...a) => inner.stream(...a),
    exists: (...a) => inner.exists(...a),
    delete: (...a) => inner.delete(...a),
    list: (...a) => inner.list(...a),
    signedUrl: (...a) => inner.signedUrl(...a),
    ping: () => inner.ping(),
    close: () => inner.close(),
    ...overrides,
  };
}

export interface FilePart {
  field: string;
  filename: string;
  data: Buffer | Uint8Array;
  contentType?: string;
}

/** A multipart/form-data body for `app.inject` or fetch. */
export function multipart(
  fields: Record<string, string>,
  files: FilePart[],
): { body: Buffer; contentType: string } {
  const boundary = `----render-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
    );
  }
  for (const file of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\n` +
          `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      Buffer.from(file.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

let addressCounter = 0;
/** A distinct client address per call (10.x.y.z), sent as Edge-Connecting-IP. */
export function freshAddress(): string {
  addressCounter += 1;
  return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

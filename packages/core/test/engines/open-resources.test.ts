import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { redisUrlForTests, skipReason, startS3Server } from '@platform/testing';
import {
  ConfigError,
  coreEnvSchema,
  loadConfig,
  openCounterStore,
  openObjectStore,
  openSqlDatabase,
} from '../../src/index.js';
import { asSignedObjectServer } from '../../src/storage/signed-object-server.js';

const redisUrl = await redisUrlForTests();

test('with nothing configured, every engine is embedded under DATA_DIR/<service>', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'resources-'));
  const env = loadConfig(coreEnvSchema, { DATA_DIR: dataDir });
  const db = await openSqlDatabase(env, 'demo');
  assert.equal(db.engine, 'pglite');
  await db.close();

  const store = openObjectStore(env, 'demo');
  assert.equal(store.driver, 'fs');
  await store.put('logs/a.log', 'hello');
  // The signing secret is kept on disk: a second process start accepts the first one's
  // URLs. (Checked by verifying, not by signing again and comparing: the two signings
  // may fall in different seconds, so their `expires` differ.)
  const again = asSignedObjectServer(openObjectStore(env, 'demo'));
  assert.ok(again, 'the embedded store serves its own signed URLs');
  assert.equal(await again.get('logs/a.log').then(String), 'hello');
  const url = await store.signedUrl('logs/a.log', { expiresInSeconds: 60 });
  const signed = url.match(/^\/_objects\/logs\/a\.log\?expires=(\d+)&signature=([0-9a-f]+)$/);
  assert.ok(signed, url);
  const [, expires = '', signature = ''] = signed;
  assert.equal(again.verifySignature('logs/a.log', expires, signature), true);
  assert.equal(again.verifySignature('logs/b.log', expires, signature), false);

  const counters = openCounterStore(env, 'demo');
  assert.equal(counters.driver, 'memory');
  await counters.close();
});

test('S3 is used when S3_ENDPOINT and S3_BUCKET are set; an endpoint without a bucket is refused', async () => {
  const s3 = await startS3Server();
  try {
    const env = loadConfig(coreEnvSchema, {
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: 'resources-test',
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
    const store = openObjectStore(env, 'demo');
    assert.equal(store.driver, 's3');
    await store.put('videos/x.mp4', Buffer.from([1, 2, 3]), { contentType: 'video/mp4' });
    assert.deepEqual([...(await store.get('videos/x.mp4'))], [1, 2, 3]);
    await store.close();
  } finally {
    await s3.stop();
  }
  const noBucket = loadConfig(coreEnvSchema, { S3_ENDPOINT: 'http://127.0.0.1:1' });
  assert.throws(
    () => openObjectStore(noBucket, 'demo'),
    (error: unknown) => error instanceof ConfigError && error.variable === 'S3_BUCKET',
  );
});

test(
  'Redis counters are used when REDIS_URL is set',
  { skip: skipReason('Redis', redisUrl !== undefined) },
  async () => {
    const env = loadConfig(coreEnvSchema, { REDIS_URL: redisUrl });
    const counters = openCounterStore(env, `demo-${process.pid}-${Date.now()}`);
    assert.equal(counters.driver, 'redis');
    assert.equal((await counters.increment('k', 60)).count, 1);
    await counters.close();
  },
);

/**
 * A database or Redis that cannot be reached is a 503 naming it with `Retry-After`, not a
 * 500 (issue 21 item 4; the render chaos run found the 500). The errors come from real
 * clients failing against a port nothing listens on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { createSqlDatabase, isAppError } from '@platform/core';
import { freePort } from '@platform/testing';
import { classifyDependencyError } from '../../src/dependency-errors.js';

test('a refused PostgreSQL connection is DATABASE_UNAVAILABLE (503, Retry-After)', async () => {
  const port = await freePort();
  const db = await createSqlDatabase({
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir: 'unused',
    poolSize: 1,
  });
  try {
    const error = await db.query('SELECT 1').then(
      () => assert.fail('nothing listens there'),
      (e: unknown) => e,
    );
    const classified = classifyDependencyError(db)(error);
    assert.ok(classified && isAppError(classified));
    assert.equal(classified.statusCode, 503);
    assert.equal(classified.code, 'DATABASE_UNAVAILABLE');
    assert.equal(
      classified.detail,
      'The database (postgres) is unavailable. Please try again shortly.',
    );
    assert.equal(classified.headers['Retry-After'], '5');
  } finally {
    await db.close();
  }
});

test('a Redis whose connection is lost is REDIS_UNAVAILABLE (503)', async (t) => {
  const port = await freePort();
  const redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, lazyConnect: true });
  redis.on('error', () => undefined);
  t.after(() => redis.disconnect());
  const error = await redis.get('k').then(
    () => assert.fail('nothing listens there'),
    (e: unknown) => e,
  );
  const classified = classifyDependencyError({ engine: 'postgres' } as never)(error);
  assert.equal(classified?.code, 'REDIS_UNAVAILABLE', String(error));
  assert.equal(classified.statusCode, 503);
});

test('other errors are left alone (a bug stays a 500)', () => {
  assert.equal(
    classifyDependencyError({ engine: 'postgres' } as never)(new TypeError('x is undefined')),
    undefined,
  );
});

test('a write the disk refused (SQLSTATE 53100) is DATABASE_UNAVAILABLE naming the disk', () => {
  const error = Object.assign(new Error('could not write to log file: No space left on device'), {
    code: '53100',
  });
  const classified = classifyDependencyError({ engine: 'pglite' } as never)(error);
  assert.equal(classified?.statusCode, 503);
  assert.equal(classified.code, 'DATABASE_UNAVAILABLE');
  assert.match(
    classified.detail,
    /^The database \(pglite\) cannot write: the disk under it is full/,
  );
  assert.equal(classified.headers['Retry-After'], '5');
});

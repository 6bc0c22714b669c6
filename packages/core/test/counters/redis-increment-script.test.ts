/**
 * The Redis counter store sends its increment script by SHA-1 (EVALSHA) once the server
 * has it, and in full again when the server has lost it (SCRIPT FLUSH, a restart), the
 * count going on unbroken. On a redis-server of the test's own, since the command
 * statistics and the script cache are the whole server's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { skipReason, startOwnRedis, type OwnEngine } from '@platform/testing';
import { RedisCounterStore } from '../../src/counters/redis/redis-counter-store.js';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/** Calls of a command so far, from INFO commandstats. */
async function calls(admin: Redis, command: string): Promise<number> {
  const info = await admin.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

describe('Redis counter store script', { skip: skipReason('redis-server', hasRedisServer) }, () => {
  let redis: OwnEngine;
  let admin: Redis;
  before(async () => {
    redis = await startOwnRedis();
    admin = new Redis(redis.url);
  });
  after(async () => {
    await admin?.quit();
    await redis?.stop();
  });

  it('goes by EVALSHA after the first call, and in full again after SCRIPT FLUSH', async () => {
    const store = new RedisCounterStore({ url: redis.url, keyPrefix: 'script-test:' });
    try {
      const counts = [];
      for (let i = 0; i < 5; i += 1) counts.push((await store.increment('a', 60)).count);
      assert.deepEqual(counts, [1, 2, 3, 4, 5]);
      assert.equal(await calls(admin, 'eval'), 1);
      assert.equal(await calls(admin, 'evalsha'), 4);

      await admin.script('FLUSH');
      assert.equal((await store.increment('a', 60)).count, 6);
      assert.equal((await store.increment('a', 60)).count, 7);
      // The refused EVALSHA (NOSCRIPT), the script in full, then by SHA-1 again.
      assert.equal(await calls(admin, 'eval'), 2);
      assert.equal(await calls(admin, 'evalsha'), 6);
    } finally {
      await store.close();
    }
  });
});

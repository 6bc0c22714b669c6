/**
 * One conformance suite for every counter store driver (memory, Redis), plus the rate
 * limiter built on them. `COUNTER_DRIVERS=memory` (or `redis`) narrows the run; Redis
 * is skipped loudly when no server answers.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { redisUrlForTests, skipReason } from '@platform/testing';
import type { CounterStore } from '../../src/counters/counter-store.js';
import { createCounterStore } from '../../src/counters/create-counter-store.js';
import { MemoryCounterStore } from '../../src/counters/memory/memory-counter-store.js';
import { createRateLimiter, rateLimitHeaders } from '../../src/counters/rate-limiter.js';

interface Harness {
  /** A new store on the same backing engine (a second instance of a service), on `now`. */
  open(now: () => number): CounterStore;
  /** Whether two stores from `open()` share counts. */
  shared: boolean;
}

const redisUrl = await redisUrlForTests();
const runPrefix = `test:counters:${randomBytes(6).toString('hex')}:`;

const DRIVERS: Record<string, { skip: string | undefined; harness: () => Harness }> = {
  memory: {
    skip: undefined,
    harness: () => ({ open: (now) => createCounterStore({ now }), shared: false }),
  },
  redis: {
    get skip() {
      return skipReason(
        `Redis (${process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'})`,
        redisUrl !== undefined,
      );
    },
    harness: () => ({
      open: (now) => createCounterStore({ redisUrl, keyPrefix: runPrefix, now }),
      shared: true,
    }),
  },
};

const selected = (process.env.COUNTER_DRIVERS ?? Object.keys(DRIVERS).join(','))
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);

/** Removes this run's Redis keys (they would expire within a minute anyway). */
async function dropRunKeys(url: string): Promise<void> {
  const client = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${runPrefix}*`, 'COUNT', 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/**
 * The stores run on a clock the test moves, so no window ends by chance mid-test and a
 * window's end is reached by moving the clock, not by sleeping. It starts one second
 * into a minute (and so into every shorter window that divides it).
 */
function testClock() {
  const clock = { ms: Math.floor(Date.now() / 60_000) * 60_000 + 1000, now: () => clock.ms };
  return clock;
}

for (const name of selected) {
  const driver = DRIVERS[name];
  assert.ok(driver, `COUNTER_DRIVERS: unknown driver ${name}`);
  const skip = driver.skip;

  describe(`counter store conformance: ${name}`, { skip }, () => {
    let harness: Harness;
    const opened: CounterStore[] = [];
    let store: CounterStore;
    const clock = testClock();
    const key = (label: string) => `${label}:${randomBytes(4).toString('hex')}`;

    before(() => {
      harness = driver.harness();
      store = harness.open(clock.now);
      opened.push(store);
    });
    after(async () => {
      for (const s of opened) await s.close();
      if (name === 'redis' && redisUrl) await dropRunKeys(redisUrl);
    });

    it('reports its driver and answers ping', async () => {
      assert.equal(store.driver, name);
      await store.ping();
    });

    it('counts hits in a window and reports its end', async () => {
      const k = key('basic');
      const first = await store.increment(k, 60);
      const second = await store.increment(k, 60);
      assert.equal(first.count, 1);
      assert.equal(second.count, 2);
      assert.equal(second.resetAtMs, first.resetAtMs);
      assert.equal(first.resetAtMs, clock.ms - 1000 + 60_000);
      assert.equal(first.nowMs, clock.ms);
      assert.equal((await store.increment(key('other'), 60)).count, 1);
      assert.equal(
        (await store.increment(k, 30)).count,
        1,
        'another window length is another counter',
      );
    });

    it('counts 200 concurrent increments exactly', async () => {
      const k = key('concurrent');
      const results = await Promise.all(Array.from({ length: 200 }, () => store.increment(k, 60)));
      const counts = results.map((r) => r.count).sort((a, b) => a - b);
      assert.deepEqual(
        counts,
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
    });

    it('starts again at 1 when the window ends', async () => {
      const start = clock.ms;
      const k = key('reset');
      const first = await store.increment(k, 1);
      assert.equal((await store.increment(k, 1)).count, 2);
      clock.ms = first.resetAtMs - 1;
      assert.equal((await store.increment(k, 1)).count, 3, 'the last millisecond of the window');
      clock.ms = first.resetAtMs;
      const next = await store.increment(k, 1);
      assert.equal(next.count, 1);
      assert.equal(next.resetAtMs, first.resetAtMs + 1000);
      clock.ms = start; // the window tests below count from one second into a minute
    });

    it('shares counts between two instances on one engine', async (t) => {
      if (!harness.shared) return t.skip('in-process store: one instance per process by design');
      const other = harness.open(clock.now);
      opened.push(other);
      const k = key('shared');
      await Promise.all([store.increment(k, 60), other.increment(k, 60), store.increment(k, 60)]);
      assert.equal((await other.increment(k, 60)).count, 4);
    });

    it('gives a Redis window key the time left in its window on the store clock', async (t) => {
      if (name !== 'redis') return t.skip('only Redis keeps keys that must expire');
      const k = key('ttl');
      await store.increment(k, 60);
      const client = new Redis(redisUrl!);
      try {
        const [redisKey] = await client.keys(`${runPrefix}60:${k}:*`);
        const ttl = await client.pttl(redisKey!);
        assert.ok(ttl > 58_000 && ttl <= 59_000, `PTTL ${ttl} ms: 59 s were left in the window`);
      } finally {
        client.disconnect();
      }
    });

    it('limits: 5 allowed, then refused with remaining, reset and retry-after', async () => {
      const limiter = createRateLimiter(store, { limit: 5, windowSeconds: 60, name: key('limit') });
      const results = [];
      for (let i = 0; i < 7; i++) results.push(await limiter.check('203.0.113.7'));
      assert.deepEqual(
        results.map((r) => [r.allowed, r.remaining]),
        [
          [true, 4],
          [true, 3],
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
          [false, 0],
        ],
      );
      const refused = results[5]!;
      const resetAt = (clock.ms - 1000 + 60_000) / 1000;
      assert.equal(refused.limit, 5);
      assert.equal(refused.resetAtSeconds, resetAt);
      assert.equal(results[0]!.retryAfterSeconds, 0);
      assert.equal(refused.retryAfterSeconds, 59, 'whole seconds left on the store clock');
      assert.equal((await limiter.check('198.51.100.1')).allowed, true, 'keys are limited apart');

      assert.deepEqual(rateLimitHeaders(results[0]!), {
        'X-RateLimit-Limit': '5',
        'X-RateLimit-Remaining': '4',
        'X-RateLimit-Reset': String(resetAt),
      });
      assert.deepEqual(rateLimitHeaders(refused), {
        'X-RateLimit-Limit': '5',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(resetAt),
        'Retry-After': String(refused.retryAfterSeconds),
      });
    });
  });
}

describe('memory counter store', () => {
  it('forgets ended windows', async () => {
    let now = 1_700_000_000_000;
    const store = new MemoryCounterStore({ now: () => now });
    for (let i = 0; i < 1000; i++) await store.increment(`k${i}`, 1);
    assert.equal(store.size, 1000);
    now += 5000;
    await store.increment('fresh', 1);
    assert.equal(store.size, 1);
  });
});

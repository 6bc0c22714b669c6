/**
 * Picks the counter store driver from configuration: Redis when `redisUrl` is given,
 * else in-process memory. The only module that imports a counter driver.
 */
import type { CounterStore } from './counter-store.js';
import { MemoryCounterStore } from './memory/memory-counter-store.js';
import { RedisCounterStore } from './redis/redis-counter-store.js';

export interface CounterStoreOptions {
  /** Redis shared by every instance. @defaultValue `undefined` (in-process memory) */
  redisUrl?: string;
  /** Put before every Redis key. @defaultValue `counters:` */
  keyPrefix?: string;
  /** Clock in Unix milliseconds; tests pin it so no window ends mid-test. @defaultValue `Date.now` */
  now?: () => number;
}

export function createCounterStore(options: CounterStoreOptions = {}): CounterStore {
  const clock = options.now === undefined ? {} : { now: options.now };
  return options.redisUrl
    ? new RedisCounterStore({
        url: options.redisUrl,
        ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
        ...clock,
      })
    : new MemoryCounterStore(clock);
}

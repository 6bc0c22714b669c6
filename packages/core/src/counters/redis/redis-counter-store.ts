/**
 * Redis counter store: one key per (key, window) — `<prefix><windowSeconds>:<key>:<windowStartMs>` —
 * incremented and given its expiry (PEXPIREAT at the end of the window) in one Lua
 * script, so concurrent hits from every instance are counted exactly and Redis drops
 * ended windows itself. Windows are aligned on multiples of `windowSeconds` since the
 * Unix epoch, read on the caller's clock.
 *
 * Script: KEYS[1] the window key; ARGV[1] the window end, Unix ms. Returns the count.
 */
import { Redis } from 'ioredis';
import type { CounterStore, WindowCount } from '../counter-store.js';

export interface RedisCounterStoreOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  url: string;
  /** Put before every key. @defaultValue `counters:` */
  keyPrefix?: string;
}

/** The slice of the Redis client this store uses. */
export interface RedisScriptClient {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  ping(): Promise<string>;
  quit(): Promise<unknown>;
}

const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return count
`;

export class RedisCounterStore implements CounterStore {
  readonly driver = 'redis';
  readonly #client: RedisScriptClient;
  readonly #keyPrefix: string;

  constructor(options: RedisCounterStoreOptions) {
    const client = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    // Failures surface through the commands (and ping() for health), not as events.
    client.on('error', () => {});
    this.#client = client;
    this.#keyPrefix = options.keyPrefix ?? 'counters:';
  }

  async increment(key: string, windowSeconds: number): Promise<WindowCount> {
    const windowMs = windowSeconds * 1000;
    const windowStart = Math.floor(Date.now() / windowMs) * windowMs;
    const resetAtMs = windowStart + windowMs;
    const redisKey = `${this.#keyPrefix}${windowSeconds}:${key}:${windowStart}`;
    const count = await this.#client.eval(INCREMENT_SCRIPT, 1, redisKey, resetAtMs);
    return { count: Number(count), resetAtMs };
  }

  async ping(): Promise<void> {
    await this.#client.ping();
  }

  async close(): Promise<void> {
    await this.#client.quit().catch(() => undefined);
  }
}

/**
 * Redis counter store: one key per (key, window) — `<prefix><windowSeconds>:<key>:<windowStartMs>` —
 * incremented and given its expiry in one Lua script, so concurrent hits from every
 * instance are counted exactly and Redis drops ended windows itself. Windows are
 * aligned on multiples of `windowSeconds` since the Unix epoch, read on the caller's
 * clock; the expiry is the time left in the window by that same clock (PEXPIRE, not
 * PEXPIREAT), so the store never mixes the caller's clock with the server's and an
 * injected clock (tests) works exactly like the real one.
 *
 * Script: KEYS[1] the window key; ARGV[1] the ms left in the window. Returns the count.
 * It is a command defined on the client (ioredis `defineCommand`): the text goes once per
 * connection (EVAL), then only its SHA-1 (EVALSHA), and again in full should the server
 * answer NOSCRIPT (a restart, SCRIPT FLUSH). Every rate-limited request runs it.
 */
import { Redis } from 'ioredis';
import type { CounterStore, WindowCount } from '../counter-store.js';

export interface RedisCounterStoreOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  url: string;
  /** Put before every key. @defaultValue `counters:` */
  keyPrefix?: string;
  /** Clock in Unix milliseconds. @defaultValue `Date.now` */
  now?: () => number;
}

const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return count
`;

/** The Redis client with the increment script defined on it. */
type CounterClient = Redis & {
  incrementWindow(key: string, msLeft: number): Promise<unknown>;
};

export class RedisCounterStore implements CounterStore {
  readonly driver = 'redis';
  readonly #client: CounterClient;
  readonly #keyPrefix: string;
  readonly #now: () => number;

  constructor(options: RedisCounterStoreOptions) {
    const client = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    // Failures surface through the commands (and ping() for health), not as events.
    client.on('error', () => {});
    client.defineCommand('incrementWindow', { lua: INCREMENT_SCRIPT, numberOfKeys: 1 });
    this.#client = client as CounterClient;
    this.#keyPrefix = options.keyPrefix ?? 'counters:';
    this.#now = options.now ?? Date.now;
  }

  async increment(key: string, windowSeconds: number): Promise<WindowCount> {
    const windowMs = windowSeconds * 1000;
    const nowMs = this.#now();
    const windowStart = Math.floor(nowMs / windowMs) * windowMs;
    const resetAtMs = windowStart + windowMs;
    const redisKey = `${this.#keyPrefix}${windowSeconds}:${key}:${windowStart}`;
    const count = await this.#client.incrementWindow(redisKey, resetAtMs - nowMs);
    return { count: Number(count), resetAtMs, nowMs };
  }

  async ping(): Promise<void> {
    await this.#client.ping();
  }

  async close(): Promise<void> {
    await this.#client.quit().catch(() => undefined);
  }
}

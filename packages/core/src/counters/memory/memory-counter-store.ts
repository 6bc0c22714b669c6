/**
 * In-process counter store: fixed windows aligned on multiples of `windowSeconds`
 * since the Unix epoch, shared by one process only. Windows that have ended are
 * swept at most once a second, so the map holds only live windows.
 */
import type { CounterStore, WindowCount } from '../counter-store.js';

export interface MemoryCounterStoreOptions {
  /** Clock in Unix milliseconds. @defaultValue `Date.now` */
  now?: () => number;
}

const SWEEP_INTERVAL_MS = 1000;

export class MemoryCounterStore implements CounterStore {
  readonly driver = 'memory';
  readonly #windows = new Map<string, Omit<WindowCount, 'nowMs'>>();
  readonly #now: () => number;
  #nextSweepAt = 0;

  constructor(options: MemoryCounterStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Live windows held (for tests and metrics). */
  get size(): number {
    return this.#windows.size;
  }

  async increment(key: string, windowSeconds: number): Promise<WindowCount> {
    const now = this.#now();
    this.#sweep(now);
    const windowMs = windowSeconds * 1000;
    const resetAtMs = (Math.floor(now / windowMs) + 1) * windowMs;
    const id = `${windowSeconds}:${key}`;
    const current = this.#windows.get(id);
    const next =
      current && current.resetAtMs === resetAtMs
        ? { count: current.count + 1, resetAtMs }
        : { count: 1, resetAtMs };
    this.#windows.set(id, next);
    return { ...next, nowMs: now };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#windows.clear();
  }

  #sweep(now: number): void {
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [id, window] of this.#windows) {
      if (window.resetAtMs <= now) this.#windows.delete(id);
    }
  }
}

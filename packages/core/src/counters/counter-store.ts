/**
 * Counter store: atomic fixed-window counters shared by every instance of a service
 * (Redis), or by one process (memory). Rate limits are built on it.
 */
export interface WindowCount {
  /** Hits in the current window, this one included. */
  count: number;
  /** When the current window ends, Unix milliseconds. */
  resetAtMs: number;
  /** The store's clock when it counted, Unix milliseconds (waits are measured on it). */
  nowMs: number;
}

export interface CounterStore {
  /** `memory` or `redis`: for health output and logs, never for branching. */
  readonly driver: string;
  /** Adds one hit to `key` in the window of `windowSeconds` that contains now. Atomic. */
  increment(key: string, windowSeconds: number): Promise<WindowCount>;
  /** Throws when the backing store cannot be reached (for `/health`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

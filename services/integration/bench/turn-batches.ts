/**
 * What a bench thread reports, sent to the main thread once a turn of its event loop
 * (`setImmediate`) rather than once an item: one message carries every record a turn
 * answered or saw. `flush` sends what is waiting at once (before a thread's last word).
 */
export function perTurn<T>(send: (items: T[]) => void): {
  add(items: readonly T[]): void;
  flush(): void;
} {
  let pending: T[] = [];
  let queued = false;
  const flush = () => {
    queued = false;
    if (pending.length === 0) return;
    send(pending);
    pending = [];
  };
  return {
    add(items) {
      for (const item of items) pending.push(item);
      if (!queued) {
        queued = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

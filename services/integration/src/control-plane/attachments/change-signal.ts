/**
 * Wakes whoever waits for "something changed": `next(ms, key)` resolves at the next
 * `notify()` that concerns `key` or after `ms`, whichever comes first (the waiter then
 * looks for itself what changed), with `false` once the signal is closed, so a
 * shutting-down server answers its long polls at once instead of holding its close for
 * their whole wait. A change of one key (an adapter type's attachments) wakes only the
 * waiters of that key and those that wait for every key; `notify()` without a key (a
 * contract, which every type's feed carries) wakes everyone.
 */
export class ChangeSignal {
  /** Each waiter's wake, with the key it waits for (undefined: any change). */
  private waiters = new Map<() => void, string | undefined>();
  private closed = false;

  notify(key?: string): void {
    for (const [wake, waitsFor] of [...this.waiters]) {
      if (key === undefined || waitsFor === undefined || waitsFor === key) wake();
    }
  }

  next(ms: number, key?: string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(!this.closed);
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.waiters.set(wake, key);
    });
  }

  close(): void {
    this.closed = true;
    this.notify();
  }
}

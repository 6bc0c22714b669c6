/**
 * Wakes whoever waits for "something changed": `next(ms)` resolves at the next `notify()`
 * or after `ms`, whichever comes first (the waiter then looks for itself what changed),
 * with `false` once the signal is closed, so a shutting-down server answers its long
 * polls at once instead of holding its close for their whole wait.
 */
export class ChangeSignal {
  private waiters = new Set<() => void>();
  private closed = false;

  notify(): void {
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }

  next(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(!this.closed);
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.waiters.add(wake);
    });
  }

  close(): void {
    this.closed = true;
    this.notify();
  }
}

/**
 * Stops a fault harness's own engines however the run ends (issue 21): each engine is
 * started through the guard, which stops it at the end (`stopAll`) or on SIGINT/SIGTERM —
 * also when the signal comes while engines are still starting (a test's timeout during
 * `initdb`, Ctrl-C while nats-server comes up): the guard waits for those starts to settle
 * and stops what they started. Without it a PostgreSQL started by `pg_ctl` (a daemon) and
 * a spawned nats-server outlive the harness.
 */
interface Started {
  stop(): Promise<unknown>;
}

export interface EngineGuard {
  /** Starts an engine under the guard; `stop` ends it (once, whichever end comes first). */
  start<T>(starting: Promise<T>, stop: (engine: T) => Promise<unknown>): Promise<T>;
  /** Runs first on a signal (kill the service processes the harness spawned). */
  onSignal(action: () => void): void;
  /** Stops every engine started, newest first (the normal end). */
  stopAll(): Promise<void>;
}

export function guardEngines(): EngineGuard {
  const started: Started[] = [];
  const starting = new Set<Promise<unknown>>();
  const actions: Array<() => void> = [];
  let signalled = false;

  const stopAll = async () => {
    // Engines may still be starting: stop them once they are up.
    while (starting.size > 0 || started.length > 0) {
      await Promise.allSettled([...starting]);
      while (started.length > 0)
        await started
          .pop()!
          .stop()
          .catch(() => undefined);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // The same signal often comes twice (`npm run chaos` forwards it, and Ctrl-C or a kill
    // of the process group reaches the harness too): a repeat must not end the process
    // while it still stops engines, so the listener stays and ignores it.
    if (signalled) return;
    signalled = true;
    for (const action of actions) {
      try {
        action();
      } catch {
        // stopping anyway
      }
    }
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  return {
    async start(startingEngine, stop) {
      starting.add(startingEngine);
      try {
        const engine = await startingEngine;
        if (signalled) {
          // Up after the signal: the harness is ending, so is this engine.
          await stop(engine).catch(() => undefined);
          throw new Error('interrupted while starting engines');
        }
        let stopped = false;
        started.push({
          stop: async () => {
            if (stopped) return;
            stopped = true;
            await stop(engine);
          },
        });
        return engine;
      } finally {
        starting.delete(startingEngine);
      }
    },
    onSignal(action) {
      actions.push(action);
    },
    stopAll,
  };
}

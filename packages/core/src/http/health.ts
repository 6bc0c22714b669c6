/**
 * `GET /health`: every dependency checked in parallel with a time limit; 200 when all
 * are up, 503 when one is down, and each one's state in the body either way.
 */
export type HealthCheck = () => Promise<unknown>;

export interface DependencyState {
  status: 'up' | 'down';
  latencyMs: number;
  /** Driver or other detail the check returned, e.g. `pglite`. */
  info?: unknown;
  error?: string;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  service: string;
  uptimeSeconds: number;
  dependencies: Record<string, DependencyState>;
}

const startedAt = Date.now();

export async function checkHealth(
  service: string,
  checks: Record<string, HealthCheck>,
  timeoutMs = 2000,
): Promise<HealthReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, DependencyState]> => {
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs,
          );
        });
        const info = await Promise.race([check(), timeout]);
        const state: DependencyState = { status: 'up', latencyMs: elapsed(started) };
        if (info !== undefined) state.info = info;
        return [name, state];
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return [name, { status: 'down', latencyMs: elapsed(started), error: message }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const dependencies = Object.fromEntries(entries);
  const allUp = entries.every(([, state]) => state.status === 'up');
  return {
    status: allUp ? 'ok' : 'unavailable',
    service,
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
    dependencies,
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/**
 * The integration benches run the platform in their own process, so they run it with the
 * node flags `npm start` gives the service (package.json `platform.nodeOptions`, read by
 * the launcher): a bench started without them starts itself again with them, the same
 * arguments and environment, and ends with that process's exit code. One list of flags,
 * read by both, so a figure is always the deployed process's.
 *
 * `BENCH_NODE_OPTIONS=0` runs without them (to measure what they change).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The flags the launcher starts the integration service with. */
export const SERVICE_NODE_OPTIONS: readonly string[] =
  (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      platform: { nodeOptions?: string[] };
    }
  ).platform.nodeOptions ?? [];

/** Returns when this process has the service's flags (or was told to go without); else never. */
export function runWithServiceNodeOptions(): void {
  if (process.env.BENCH_NODE_OPTIONS === '0') return;
  const missing = SERVICE_NODE_OPTIONS.filter((flag) => !process.execArgv.includes(flag));
  if (missing.length === 0) return;
  const child = spawnSync(
    process.execPath,
    [...missing, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit' },
  );
  process.exit(child.status ?? 1);
}

/**
 * The `analytics` command's process: runs the CLI on its arguments and exits with its
 * code. `bin/analytics.mjs` imports it through tsx; the chaos harness runs it bundled.
 * A build sets DuckDB's allocator for its source's size (`pipeline/build-allocator.ts`)
 * before the CLI, and with it DuckDB, is loaded.
 */
import { configureBuildAllocator } from './pipeline/build-allocator.js';

const args = process.argv.slice(2);
if (args[0] === 'build') {
  const at = args.findIndex((arg) => arg === '--source' || arg.startsWith('--source='));
  const flag = args[at];
  const source = flag?.includes('=') ? flag.slice(flag.indexOf('=') + 1) : args[at + 1];
  // No source: the CLI reports the usage error.
  if (source !== undefined) configureBuildAllocator(source);
}
const { runCli } = await import('./cli.js');
process.exitCode = await runCli(args);

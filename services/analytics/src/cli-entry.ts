/**
 * The `analytics` command's process: runs the CLI on its arguments and exits with its
 * code. `bin/analytics.mjs` imports it through tsx; the chaos harness runs it bundled.
 * Its builds hand DuckDB's freed memory back at once (`pipeline/build-allocator.ts`).
 */
// First: DuckDB's allocator reads its settings when the library loads (build-allocator.ts).
import './pipeline/build-allocator.js';
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2));

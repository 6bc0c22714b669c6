/**
 * The `analytics` command's process: runs the CLI on its arguments and exits with its
 * code. `bin/analytics.mjs` imports it through tsx; the chaos harness runs it bundled.
 */
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2));

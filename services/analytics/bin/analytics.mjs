#!/usr/bin/env node
// The `analytics` command: runs src/cli.ts through tsx (the workspace has no build step).
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli.ts');
process.exitCode = await runCli(process.argv.slice(2));

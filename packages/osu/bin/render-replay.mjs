#!/usr/bin/env node
// render-replay CLI: registers the TypeScript loader (tsx), then runs src/cli/render-replay.ts.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/render-replay.ts');
process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
// render-replay CLI: registers the TypeScript loader (tsx), then runs src/cli/render-replay.ts.
// When the node running it lacks the frame loop's start flags (src/render/frame-loop-flags.ts:
// `npx render-replay` gives none), it first starts itself again with them, so a render from
// the CLI takes the same path as the render service's (V8 flags cannot be set at run time).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { missingFrameLoopFlags } = await import('../src/render/frame-loop-flags.ts');
const missing = missingFrameLoopFlags();
// the marker stops a loop should a node not report its flags in execArgv
if (missing.length > 0 && process.env.RENDER_REPLAY_RESTARTED !== '1') {
  const child = spawn(
    process.execPath,
    [...process.execArgv, ...missing, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, RENDER_REPLAY_RESTARTED: '1' } },
  );
  // a terminal's Ctrl-C reaches both; a signal sent to this process alone is passed on
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exitCode = code ?? 1;
  });
} else {
  const { main } = await import('../src/cli/render-replay.ts');
  process.exitCode = await main(process.argv.slice(2));
}

// `npm run chaos -- [--service integration|render|analytics] [--faults N] [--seed S] …`
// (issue 21): runs the seeded fault harness of one service, `services/<service>/chaos/chaos.ts`
// (integration when --service is not given); every other option goes to that harness.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const at = args.findIndex((a) => a === '--service' || a.startsWith('--service='));
const service =
  at < 0 ? 'integration' : args[at].includes('=') ? args[at].split('=')[1] : args[at + 1];
const harness = fileURLToPath(new URL(`../services/${service}/chaos/chaos.ts`, import.meta.url));
if (!/^[a-z-]+$/.test(service ?? '') || !existsSync(harness)) {
  console.error(`chaos: no harness for --service ${service} (integration, render, analytics)`);
  process.exit(2);
}
const run = spawn(process.execPath, ['--import', 'tsx', harness, ...args], {
  cwd: fileURLToPath(new URL(`../services/${service}`, import.meta.url)),
  stdio: 'inherit',
});
// A signal meant for this wrapper (a `timeout`, npm stopped) reaches the harness, which
// stops its engines; Ctrl-C reaches both through the terminal's process group. SIGUSR2
// asks render's harness to stop injecting faults and check the end state.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGUSR2']) process.on(signal, () => run.kill(signal));
run.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

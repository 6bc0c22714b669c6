// SIGTERM while a request is in flight: the request still completes, new connections are
// refused, the service's closers run, and the process exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const core = JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)));
const script = `
import { createHttpApp, createLogger, handleShutdown, listen } from ${core};
const logger = createLogger({ service: 'shutdown-test', level: 'silent' });
const app = await createHttpApp({ service: 'shutdown-test', logger });
app.get('/slow', async () => { console.log('IN FLIGHT'); await new Promise((r) => setTimeout(r, 700)); return { done: true }; });
const url = await listen(app, { port: 0, host: '127.0.0.1' });
handleShutdown({ logger, closers: [() => app.close(), async () => console.log('pool closed')] });
console.log('READY ' + url);
`;

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} finishes in-flight requests, runs closers and exits 0`, async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    while (!/READY (\S+)/.test(stdout)) await new Promise((done) => setTimeout(done, 20));
    const url = /READY (\S+)/.exec(stdout)![1]!;

    const inFlight = fetch(`${url}/slow`);
    while (!stdout.includes('IN FLIGHT')) await new Promise((done) => setTimeout(done, 10));
    child.kill(signal);
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { done: true });
    assert.equal(await exited, 0);
    assert.match(stdout, /pool closed/);
    await assert.rejects(fetch(`${url}/health`));
  });
}

// The launcher against a workspace of its own: two tiny services that declare themselves
// the way real ones do, and one that dies. The real services are started by the
// end-to-end test in `start-all.test.ts`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { freePort } from '@platform/testing';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const launcher = fileURLToPath(new URL('../src/launch.ts', import.meta.url));

function writeService(
  root: string,
  name: string,
  ports: Record<string, number>,
  body: string,
  pages?: Array<{ title: string; path: string; port?: string }>,
  nodeOptions?: string[],
): void {
  const dir = join(root, 'services', name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name,
      platform: { service: name, entry: 'src/main.mjs', nodeOptions, ports, pages },
    }),
  );
  writeFileSync(join(dir, 'src', 'main.mjs'), body);
}

const httpService = (variables: string[]) => `
import { createServer } from 'node:http';
const servers = ${JSON.stringify(variables)}.map((v) => createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ port: v, dataDir: process.env.DATA_DIR, execArgv: process.execArgv }));
}).listen(Number(process.env[v]), '127.0.0.1'));
process.on('SIGTERM', () => { console.log('graceful stop'); servers.forEach((s) => s.close()); process.exit(0); });
`;

function launch(root: string, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', launcher, ...args], {
    env: {
      ...process.env,
      PLATFORM_ROOT: root,
      DATA_DIR: join(root, 'data'),
      LAUNCH_READY_TIMEOUT_MS: '20000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const waitFor = async (pattern: RegExp, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(output)) {
      if (Date.now() > deadline)
        throw new Error(`launcher output never matched ${pattern}:\n${output}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  };
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, waitFor, exited, output: () => output };
}

test('starts every declared service, prints each URL, and stops them on SIGINT', async () => {
  const root = mkdtempSync(join(tmpdir(), 'launch-'));
  const [a, b1, b2] = [await freePort(), await freePort(), await freePort()];
  writeService(root, 'alpha', { ALPHA_PORT: a }, httpService(['ALPHA_PORT']));
  writeService(
    root,
    'beta',
    { BETA_PORT: b1, BETA_ADMIN_PORT: b2 },
    httpService(['BETA_PORT', 'BETA_ADMIN_PORT']),
  );
  mkdirSync(join(root, 'services', 'not-a-service'));

  const run = launch(root);
  await run.waitFor(/Ctrl-C stops everything/);
  assert.match(run.output(), new RegExp(`alpha\\s+http://localhost:${a}`));
  assert.match(run.output(), new RegExp(`beta\\s+http://localhost:${b2} \\(BETA_ADMIN_PORT\\)`));
  const answer = (await (await fetch(`http://127.0.0.1:${b2}/health`)).json()) as {
    dataDir: string;
  };
  assert.equal(answer.dataDir, join(root, 'data'));

  run.child.kill('SIGINT');
  assert.equal(await run.exited, 0);
  assert.match(run.output(), /\[alpha\] graceful stop/);
  assert.match(run.output(), /all services stopped/);
  await assert.rejects(fetch(`http://127.0.0.1:${a}/health`));
});

test("passes a service's nodeOptions to its node process", async () => {
  const root = mkdtempSync(join(tmpdir(), 'launch-'));
  const port = await freePort();
  writeService(root, 'alpha', { ALPHA_PORT: port }, httpService(['ALPHA_PORT']), undefined, [
    '--min-semi-space-size=16',
  ]);
  const run = launch(root);
  await run.waitFor(/Ctrl-C stops everything/);
  const answer = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as {
    execArgv: string[];
  };
  assert.equal(answer.execArgv[0], '--min-semi-space-size=16');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('prints the pages each service declares, on the port each page names', async () => {
  const root = mkdtempSync(join(tmpdir(), 'launch-'));
  const [a, b1, b2] = [await freePort(), await freePort(), await freePort()];
  writeService(root, 'alpha', { ALPHA_PORT: a }, httpService(['ALPHA_PORT']), [
    { title: 'home', path: '/' },
    { title: 'player', path: '/view/{job_id}' },
  ]);
  writeService(
    root,
    'beta',
    { BETA_PORT: b1, BETA_ADMIN_PORT: b2 },
    httpService(['BETA_PORT', 'BETA_ADMIN_PORT']),
    [{ title: 'console', path: '/console', port: 'BETA_ADMIN_PORT' }],
  );

  const run = launch(root);
  await run.waitFor(/Ctrl-C stops everything/);
  const pages = run.output().split('\npages:\n')[1] ?? '';
  assert.match(pages, new RegExp(`alpha\\s+home\\s+http://localhost:${a}/\n`));
  assert.match(pages, new RegExp(`alpha\\s+player\\s+http://localhost:${a}/view/\\{job_id\\}\n`));
  assert.match(pages, new RegExp(`beta\\s+console\\s+http://localhost:${b2}/console\n`));
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('refuses a page on a port the service does not declare, before starting anything', async () => {
  const root = mkdtempSync(join(tmpdir(), 'launch-'));
  writeService(root, 'alpha', { ALPHA_PORT: await freePort() }, httpService(['ALPHA_PORT']), [
    { title: 'console', path: '/console', port: 'ADMIN_PORT' },
  ]);
  const run = launch(root);
  assert.equal(await run.exited, 2);
  assert.match(run.output(), /alpha: page "console" names port ADMIN_PORT, not one of ALPHA_PORT/);
  assert.doesNotMatch(run.output(), /\[alpha\]/);
});

test('runs only the services named on the command line, and refuses unknown names', async () => {
  const root = mkdtempSync(join(tmpdir(), 'launch-'));
  const [a, b] = [await freePort(), await freePort()];
  writeService(root, 'alpha', { ALPHA_PORT: a }, httpService(['ALPHA_PORT']));
  writeService(root, 'beta', { BETA_PORT: b }, httpService(['BETA_PORT']));

  const only = launch(root, ['beta']);
  await only.waitFor(/Ctrl-C stops everything/);
  assert.doesNotMatch(only.output(), /alpha/);
  only.child.kill('SIGTERM');
  assert.equal(await only.exited, 0);

  const wrong = launch(root, ['gamma']);
  assert.equal(await wrong.exited, 2);
  assert.match(wrong.output(), /unknown service\(s\): gamma; known: alpha, beta/);
});

test('a service that dies at start-up stops the others and fails the launch', async () => {
  const root = mkdtempSync(join(tmpdir(), 'launch-'));
  writeService(root, 'alpha', { ALPHA_PORT: await freePort() }, httpService(['ALPHA_PORT']));
  writeService(
    root,
    'broken',
    { BROKEN_PORT: await freePort() },
    `console.error('configuration error: BROKEN_PORT: nope'); process.exit(78);`,
  );
  const run = launch(root);
  assert.equal(await run.exited, 1);
  assert.match(run.output(), /\[broken\s*\] configuration error: BROKEN_PORT: nope/);
  assert.match(run.output(), /exited unexpectedly \(code 78\)/);
});

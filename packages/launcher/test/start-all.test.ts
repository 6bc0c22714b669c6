// `npm start` on a fresh data folder: every real service of the workspace comes up on
// its embedded defaults and answers /health on every port it declares.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { freePort } from '@platform/testing';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const launcher = fileURLToPath(new URL('../src/launch.ts', import.meta.url));

const manifests = readdirSync(join(root, 'services'))
  .map((name) => join(root, 'services', name, 'package.json'))
  .filter((path) => existsSync(path))
  .map(
    (path) =>
      JSON.parse(readFileSync(path, 'utf8')).platform as
        | {
            service: string;
            ports: Record<string, number>;
            pages?: Array<{ title: string; path: string; port?: string }>;
          }
        | undefined,
  )
  .filter((manifest) => manifest !== undefined);

test(
  'every service starts on embedded defaults and answers /health on each port',
  { skip: manifests.length === 0 ? 'no services declared yet' : undefined, timeout: 240_000 },
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'start-all-'));
    const env: Record<string, string> = {};
    const expected: Array<{ service: string; port: number }> = [];
    for (const manifest of manifests) {
      for (const variable of Object.keys(manifest.ports)) {
        const port = await freePort();
        env[`${manifest.service.toUpperCase()}_${variable}`] = String(port);
        expected.push({ service: manifest.service, port });
      }
    }
    // Only the embedded defaults: no engine URL may leak in from the caller's environment.
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(
        ([key]) => !/^(DATABASE_URL|REDIS_URL|NATS_URL|S3_|PORT$)/.test(key),
      ),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', launcher], {
      cwd: root,
      env: {
        ...clean,
        ...env,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        LAUNCH_READY_TIMEOUT_MS: '200000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so Ctrl-C can be sent as a terminal sends it: to the group.
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const ready = await Promise.race([
        (async () => {
          while (!output.includes('Ctrl-C stops everything'))
            await new Promise((done) => setTimeout(done, 200));
          return true;
        })(),
        exited.then(() => false),
      ]);
      assert.ok(ready, `launcher stopped before every service was ready:\n${output.slice(-4000)}`);
      for (const { service, port } of expected) {
        const response = await fetch(`http://127.0.0.1:${port}/health`).catch((error: Error) => {
          // Say what the launcher saw: a service that exited, or a port that was not its own.
          throw new Error(`${service} on ${port}: ${error.message}\n${output.slice(-4000)}`, {
            cause: error,
          });
        });
        assert.equal(response.status, 200, `${service} on ${port}: ${await response.text()}`);
      }
      // Every page printed under "pages:" opens as a web page (those without a placeholder).
      const printed = [
        ...(output.split('\npages:\n')[1] ?? '').matchAll(/^\s+(\S+)\s+(.+?)\s+(http:\/\/\S+)$/gm),
      ];
      const declared = manifests.flatMap((manifest) => manifest.pages ?? []);
      assert.equal(printed.length, declared.length, `printed pages:\n${output}`);
      for (const [, service, title, url] of printed) {
        if (url!.includes('{')) continue;
        const response = await fetch(url!);
        assert.equal(response.status, 200, `${service} ${title} ${url}`);
        assert.match(
          response.headers.get('content-type') ?? '',
          /text\/html/,
          `${service} ${title} ${url}`,
        );
      }
    } finally {
      process.kill(-child.pid!, 'SIGINT');
      const code = await Promise.race([
        exited,
        new Promise<'hung'>((done) => setTimeout(() => done('hung'), 30_000)),
      ]);
      try {
        process.kill(-child.pid!, 'SIGKILL'); // whatever is left of the group
      } catch {
        // already gone
      }
      rmSync(dataDir, { recursive: true, force: true });
      assert.equal(code, 0, `launcher did not stop cleanly:\n${output.slice(-2000)}`);
    }
  },
);

/**
 * RestartableService (issue 21, the chaos harnesses): a service killed with -9 whose port
 * another process took meanwhile comes back on a fresh port, and that is not a crash.
 * The harnesses used to start it on the taken port again and again (EADDRINUSE each
 * time, each counted as a crash). The child here is a real process: a small HTTP server
 * that listens only when told (a line on stdin), so the port can be taken between its
 * start and its listen, as a slow tsx start-up leaves it open to.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { test, type TestContext } from 'node:test';
import { RestartableService, until } from '../src/index.js';

const SERVER = `
const http = require('node:http');
process.stdin.once('data', (line) => {
  if (String(line).startsWith('crash')) process.exit(3);
  http.createServer((_, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
});`;

/** The service under test, with every child it starts killed when the test ends. */
async function tinyService(t: TestContext) {
  const children: ChildProcess[] = [];
  const tiny = await RestartableService.create({
    name: 'tiny',
    portNames: ['PORT'],
    spawn: (ports) => {
      const child = spawn(process.execPath, ['-e', SERVER], {
        env: { ...process.env, PORT: String(ports.PORT) },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.push(child);
      return child;
    },
  });
  t.after(() => {
    tiny.stop();
    for (const child of children) child.kill('SIGKILL');
  });
  /** Lets the `n`th child (0-based) listen, once it has started. */
  const go = async (n: number, line = 'go') => {
    await until(`start ${n + 1}`, 10_000, () => children.length > n);
    children[n]!.stdin!.write(`${line}\n`);
  };
  return { tiny, children, go };
}

const answers = async (url: string) =>
  (await fetch(url, { signal: AbortSignal.timeout(1000) }).catch(() => undefined))?.status === 200;

const occupy = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

test('a port taken while the service was down: it comes back on a fresh port, not a crash', async (t) => {
  const { tiny, go } = await tinyService(t);
  await tiny.start();
  await go(0);
  const first = tiny.ports.PORT!;
  await until('the first start answers', 10_000, () => answers(tiny.url()));

  await tiny.kill();
  // Started again; the port is taken before it listens (its start-up under load).
  await tiny.start();
  const taker = await occupy(first);
  t.after(() => taker.close());
  await go(1);

  // The second child exits with EADDRINUSE; a third starts on a fresh port.
  await go(2);
  await until('the service answers again', 10_000, () => answers(tiny.url()));
  assert.notEqual(tiny.ports.PORT, first);
  assert.equal(tiny.relocations, 1);
  assert.equal(tiny.crashes, 0);
});

test('a port taken before the restart: the restart moves at once', async (t) => {
  const { tiny, children, go } = await tinyService(t);
  const first = tiny.ports.PORT!;
  const taker = await occupy(first);
  t.after(() => taker.close());
  await tiny.start();
  await go(0);
  await until('the service answers', 10_000, () => answers(tiny.url()));
  assert.notEqual(tiny.ports.PORT, first);
  assert.equal(children.length, 1);
  assert.equal(tiny.crashes, 0);
});

test('an exit of its own with the port free is a crash, and the port stays', async (t) => {
  const { tiny, go } = await tinyService(t);
  const first = tiny.ports.PORT!;
  await tiny.start();
  await go(0, 'crash');
  await go(1);
  await until('the service answers', 10_000, () => answers(tiny.url()));
  assert.equal(tiny.ports.PORT, first);
  assert.equal(tiny.crashes, 1);
  assert.equal(tiny.relocations, 0);
});

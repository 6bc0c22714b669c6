/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for tests that must hand a port
 * to another process before it listens (a child's env). In-process servers listen on
 * port 0 instead.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bindable = (port: number) =>
  new Promise<number | undefined>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });

/** Whether `port` on 127.0.0.1 can be listened on now. */
export async function portFree(port: number): Promise<boolean> {
  return (await bindable(port)) === port;
}

/** Ports this process has handed out: never handed out again. */
const handedOut = new Set<number>();

/**
 * Where processes note the ports they handed out: a file per port holding the pid. A port
 * is handed out between the check that it is free and its child's listen, and in that gap
 * another test process's check finds it free too (a nats-server of startup-nats could not
 * bind its port beside other test files: a fresh-clone CI, 28 Nov 2026).
 */
const RESERVED_DIR = join(tmpdir(), 'platform-test-ports');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Notes `port` as this process's; false when a live process noted it first. */
function reserve(port: number): boolean {
  const file = join(RESERVED_DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      mkdirSync(RESERVED_DIR, { recursive: true });
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      // A temp folder this process cannot write: no notes, the port as before.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
      let owner = Number.NaN;
      try {
        owner = Number(readFileSync(file, 'utf8'));
      } catch {
        // gone meanwhile: try again
      }
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
      try {
        unlinkSync(file); // a dead process's note
      } catch {
        // another process took it over meanwhile
      }
    }
  }
  return false;
}

process.once('exit', () => {
  for (const port of handedOut) {
    try {
      const file = join(RESERVED_DIR, String(port));
      if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
    } catch {
      // not ours, or gone
    }
  }
});

/**
 * Below Linux's ephemeral range (32768–60999), picked at random: no outgoing connection
 * and no server listening on port 0 (every in-process test server) can take it between
 * this call and the child's listen. An ephemeral port could be, and was: `npm start`'s
 * end-to-end test saw a service port answer the launcher's readiness probe and then refuse
 * the test (27 Nov CI, three test files and a chaos run beside it). Never the same port
 * twice in one process, so `[await freePort(), await freePort()]` gives two, and never one
 * another live process handed out (`reserve`).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(candidate)) continue;
    const port = await bindable(candidate);
    if (port !== undefined && reserve(port)) {
      handedOut.add(port);
      return port;
    }
  }
  const port = await bindable(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

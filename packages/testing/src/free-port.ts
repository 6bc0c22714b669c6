/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for tests that must hand a port
 * to another process before it listens (a child's env). In-process servers listen on
 * port 0 instead.
 */
import { createServer } from 'node:net';

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
 * Below Linux's ephemeral range (32768–60999), picked at random: no outgoing connection
 * and no server listening on port 0 (every in-process test server) can take it between
 * this call and the child's listen. An ephemeral port could be, and was: `npm start`'s
 * end-to-end test saw a service port answer the launcher's readiness probe and then refuse
 * the test (27 Nov CI, three test files and a chaos run beside it). Never the same port
 * twice in one process, so `[await freePort(), await freePort()]` gives two.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(candidate)) continue;
    const port = await bindable(candidate);
    if (port !== undefined) {
      handedOut.add(port);
      return port;
    }
  }
  const port = await bindable(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

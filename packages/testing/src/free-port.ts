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

export async function freePort(): Promise<number> {
  const port = await bindable(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

/**
 * Below Linux's ephemeral range (32768–60999): no outgoing connection of any process
 * takes it. For what a fault harness kills and starts again on the same port (a service,
 * PostgreSQL, nats-server): an ephemeral port freed by a kill can be taken meanwhile by
 * any process's connection (or another harness's freePort), and the restart then fails
 * with EADDRINUSE. Picked at random, so harnesses side by side rarely meet.
 */
export async function freeStablePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = await bindable(20_000 + Math.floor(Math.random() * 12_000));
    if (port !== undefined) return port;
  }
  return freePort();
}

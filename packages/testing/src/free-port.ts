/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for tests that must hand a port
 * to another process before it listens (a child's env). In-process servers listen on
 * port 0 instead.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

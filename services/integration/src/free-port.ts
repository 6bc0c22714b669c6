/**
 * Port 0 (tests run the platform in-process with it) resolved to a concrete free port
 * before an adapter is built, because an adapter advertises its admin URL to the control
 * plane before it listens. A configured port is returned unchanged.
 */
import { createServer } from 'node:net';

export function concretePort(port: number, host: string): Promise<number> {
  if (port !== 0) return Promise.resolve(port);
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

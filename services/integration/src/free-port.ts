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

const isAddressInUse = (error: unknown) =>
  (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';

/**
 * Runs `serve` on `concretePort(port, host)`. With port 0 the port chosen is free only
 * until something else binds it: between the choice and `serve`'s listen, an outgoing
 * connection of this machine can take it as its own ephemeral port (the ports `listen(0)`
 * hands out come from the same range). Then `serve` fails with EADDRINUSE and runs again
 * on a port chosen anew, up to `attempts` times in all (seen: an adapter thread of a test
 * beside other test files, 28 Nov 2026). A configured port is tried once: taken, it is
 * the operator's to know.
 */
export async function onConcretePort<T>(
  port: number,
  host: string,
  serve: (port: number) => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const chosen = await concretePort(port, host);
    try {
      return await serve(chosen);
    } catch (error) {
      if (port !== 0 || !isAddressInUse(error) || attempt >= attempts) throw error;
    }
  }
}

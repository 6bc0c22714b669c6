/**
 * Port 0 resolved before an adapter listens (`free-port.ts`): a port another socket took
 * in between is chosen again, a configured one is not.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, describe, it } from 'node:test';
import { onConcretePort } from '../../src/free-port.js';

const listenOn = (server: Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });

describe('a port chosen for an adapter before it listens', () => {
  const servers: Server[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('chooses again when the chosen port was taken before the listen (EADDRINUSE)', async () => {
    const tried: number[] = [];
    const port = await onConcretePort(0, '127.0.0.1', async (chosen) => {
      tried.push(chosen);
      // The first time, something else binds the chosen port first, as an outgoing
      // connection taking it for its ephemeral port would.
      if (tried.length === 1) {
        const squatter = createServer();
        servers.push(squatter);
        await listenOn(squatter, chosen);
      }
      const server = createServer();
      servers.push(server);
      return listenOn(server, chosen);
    });
    assert.equal(tried.length, 2, `tried ${tried.join(', ')}`);
    assert.notEqual(tried[1], tried[0]);
    assert.equal(port, tried[1]);
  });

  it('gives up after its attempts, and never retries a configured port or another error', async () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    const other = new Error('refused to start');
    const cases = [
      { port: 0, error: inUse, attempts: 3, calls: 3, why: 'port 0: chosen again, 3 times in all' },
      { port: 1, error: inUse, attempts: 5, calls: 1, why: 'a configured port is tried once' },
      { port: 0, error: other, attempts: 5, calls: 1, why: 'only a taken port is chosen again' },
    ];
    for (const { port, error, attempts, calls, why } of cases) {
      let tried = 0;
      const failing = async () => {
        tried += 1;
        throw error;
      };
      await assert.rejects(onConcretePort(port, '127.0.0.1', failing, attempts), error);
      assert.equal(tried, calls, why);
    }
  });
});

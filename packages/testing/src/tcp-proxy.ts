/**
 * A small TCP proxy between a service and an engine, for fault tests (issue 21): it
 * forwards every connection to the target until told to `cut` (every open connection is
 * destroyed and new ones are refused at once) or to `stall` (connections stay open but
 * no byte goes through either way until `restore`, as with a peer that stopped
 * answering); `restore` forwards again.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'cut' | 'stall';

export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  port: number;
  readonly mode: ProxyMode;
  cut(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    if (mode === 'stall') {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  const cut = () => {
    mode = 'cut';
    for (const [client, upstream] of [...pairs]) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  return {
    port: address.port,
    get mode() {
      return mode;
    },
    cut,
    stall() {
      mode = 'stall';
      // Paused sockets read nothing: bytes wait in the kernel's buffers, none is lost.
      for (const [client, upstream] of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      mode = 'forward';
      for (const [client, upstream] of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

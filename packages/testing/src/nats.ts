/** NATS for tests: the URL when a server answers a TCP connect, else undefined. */
import { connect } from 'node:net';

export async function natsUrlForTests(): Promise<string | undefined> {
  const url = new URL(process.env.NATS_URL ?? 'nats://127.0.0.1:4222');
  const reachable = await new Promise<boolean>((done) => {
    const socket = connect({ host: url.hostname, port: Number(url.port || 4222), timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', () => done(false));
  });
  return reachable ? url.toString() : undefined;
}

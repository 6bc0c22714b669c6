/**
 * Process lifecycle: listen, then on SIGTERM or SIGINT stop accepting, let in-flight
 * requests finish (Fastify's `close()`), run the service's closers (queues, pools) in
 * order, and exit. A shutdown that hangs is cut off after `timeoutMs`.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

export type Closer = () => Promise<unknown>;

export interface ListenOptions {
  port: number;
  /** @defaultValue `127.0.0.1` (services pass `listenHost(env)`) */
  host?: string;
}

/** Starts listening and returns the URL the app answers on. */
export async function listen(
  app: FastifyInstance,
  { port, host = '127.0.0.1' }: ListenOptions,
): Promise<string> {
  await app.listen({ port, host });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${shownHost}:${actualPort}`;
}

export interface ShutdownOptions {
  logger: Logger;
  /** Run in order: usually the HTTP apps first, then workers, then pools. */
  closers: Closer[];
  /** @defaultValue 15000 */
  timeoutMs?: number;
  /** @defaultValue `process.exit` */
  exit?: (code: number) => void;
}

/** Installs SIGTERM/SIGINT handlers; returns the shutdown function for direct use in tests. */
export function handleShutdown({
  logger,
  closers,
  timeoutMs = 15_000,
  exit = process.exit,
}: ShutdownOptions): () => Promise<void> {
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (signal = 'shutdown') => {
    shuttingDown ??= (async () => {
      logger.info({ signal }, 'shutting down: no new requests, finishing in-flight work');
      const timer = setTimeout(() => {
        logger.error({ timeoutMs }, 'shutdown took too long; exiting');
        exit(1);
      }, timeoutMs);
      timer.unref();
      let code = 0;
      for (const close of closers) {
        try {
          await close();
        } catch (error) {
          code = 1;
          logger.error({ err: error }, 'error while shutting down');
        }
      }
      clearTimeout(timer);
      logger.info('shut down cleanly');
      exit(code);
    })();
    return shuttingDown;
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return () => shutdown();
}

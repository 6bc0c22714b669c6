/**
 * Reads an upload body under an idle timeout: a client that sends nothing for `idleMs`
 * has its connection closed (a slow-loris upload cannot hold a slot). The timeout is
 * lifted once `read` is done, so the processing that follows is not cut off.
 */
import type { FastifyRequest } from 'fastify';

export async function withBodyIdleTimeout<T>(
  request: FastifyRequest,
  idleMs: number,
  read: () => Promise<T>,
): Promise<T> {
  const socket = request.raw.socket as (typeof request.raw.socket & object) | null;
  if (!socket || typeof socket.setTimeout !== 'function') return read();
  const onIdle = () => {
    request.log.warn({ idleMs }, 'upload idle past its timeout; connection closed');
    socket.destroy();
  };
  socket.setTimeout(idleMs);
  socket.once('timeout', onIdle);
  try {
    return await read();
  } finally {
    socket.off('timeout', onIdle);
    socket.setTimeout(0);
  }
}

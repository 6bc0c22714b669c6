/**
 * One HTTP POST with both timeouts always set: connect (socket not connected in time)
 * and read (no byte for `readTimeoutMs`). Network failures and timeouts raise
 * `TransientDeliveryError` with the cause attached; a response of any status resolves.
 *
 * A timeout that fires is acted on only after the sockets were read once more: Node runs
 * expired timers before it polls sockets, so after this process stalled longer than a
 * timeout (a long synchronous PGlite statement, a starved process at high load) the timer
 * fired while the connect or the receiver's answer was already waiting unread. The
 * receiver had the delivery, the adapter saw a timeout and sent it again (the soak's
 * webhook duplicates of 27 Nov). `setImmediate` runs after that iteration's poll phase.
 */
import http from 'node:http';
import https from 'node:https';
import { OutboundRefusedError } from '@platform/core';
import { PermanentDeliveryError, TransientDeliveryError } from '../runtime/failures.js';

export interface PostResult {
  status: number;
  body: string;
}

export function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  timeouts: { connectTimeoutMs: number; readTimeoutMs: number },
  agent: http.Agent | https.Agent,
): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        ...headers,
      },
    });
    let connectTimer: NodeJS.Timeout | undefined;
    let answered = false;
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () =>
          setImmediate(() => {
            if (socket.connecting)
              request.destroy(
                new TransientDeliveryError(`connect timeout after ${timeouts.connectTimeoutMs} ms`),
              );
          }),
        timeouts.connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    request.setTimeout(timeouts.readTimeoutMs, () => {
      const readBefore = request.socket?.bytesRead;
      setImmediate(() => {
        // An answer read meanwhile, or bytes that restarted the idle timer: not a timeout (yet).
        if (answered || (request.socket && request.socket.bytesRead !== readBefore)) return;
        request.destroy(
          new TransientDeliveryError(`read timeout after ${timeouts.readTimeoutMs} ms`),
        );
      });
    });
    request.on('error', (error) => {
      clearTimeout(connectTimer);
      // A target the outbound guard refuses stays refused: dead-lettered, not retried.
      if (error instanceof OutboundRefusedError)
        return reject(new PermanentDeliveryError(`webhook target refused: ${error.message}`, 0));
      reject(
        error instanceof TransientDeliveryError
          ? error
          : new TransientDeliveryError(`POST ${url.origin} failed: ${error.message}`, {
              cause: error,
            }),
      );
    });
    request.on('response', (response) => {
      clearTimeout(connectTimer);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < 65_536) text += chunk;
      });
      response.on('end', () => {
        answered = true;
        resolve({ status: response.statusCode ?? 0, body: text });
      });
      response.on('error', (error) =>
        reject(
          new TransientDeliveryError(`response from ${url.origin} broke: ${error.message}`, {
            cause: error,
          }),
        ),
      );
    });
    request.end(body);
  });
}

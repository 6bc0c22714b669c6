/**
 * Which network address a request comes from, for rate limits and per-client rules.
 *
 * The edge proxy sets `Edge-Connecting-IP`. It is believed only when the direct peer is
 * a trusted proxy (`TRUSTED_PROXIES`); with no list configured it is always believed, as
 * the render spec says, and a warning is logged once at start-up that the origin must
 * then be reachable through the proxy only. Otherwise the socket's address is used.
 */
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { trustedProxyList } from '../config/core-env.js';

export const CLIENT_ADDRESS_HEADER = 'edge-connecting-ip';

export interface ClientAddressOptions {
  /** CIDR ranges or addresses of trusted proxies; undefined trusts the header from anyone. */
  trustedProxies?: string[] | undefined;
  logger?: Logger;
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  socket: { remoteAddress?: string | undefined };
}

export type ClientAddressResolver = (request: RequestLike) => string;

export function createClientAddressResolver(options: ClientAddressOptions = {}): ClientAddressResolver {
  const trusted = options.trustedProxies ? trustedProxyList(options.trustedProxies) : undefined;
  if (!trusted) {
    options.logger?.warn(
      'TRUSTED_PROXIES is not set: the Edge-Connecting-IP header is believed from any peer, ' +
        'so this origin must be reachable only through the edge proxy',
    );
  }
  return (request) => {
    const peer = normalize(request.socket.remoteAddress ?? '') || 'unknown';
    const header = request.headers[CLIENT_ADDRESS_HEADER];
    const claimed = normalize((Array.isArray(header) ? header[0] : header)?.trim() ?? '');
    if (!claimed || isIP(claimed) === 0) return peer;
    if (trusted && !(isIP(peer) !== 0 && trusted.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4'))) {
      return peer;
    }
    return claimed;
  };
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
function normalize(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

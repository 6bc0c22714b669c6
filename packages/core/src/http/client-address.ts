/**
 * Which client a request comes from, for rate limits and per-client rules.
 *
 * The edge proxy sets `Edge-Connecting-IP`. It is believed only when the direct peer is
 * a trusted proxy: one listed in `TRUSTED_PROXIES`, or, with no list configured, a
 * loopback peer (a proxy on the same machine, local runs). Otherwise the socket's
 * address is used, so a client cannot pick its own identity.
 *
 * IPv4 clients are keyed by address; IPv6 clients by their /64 (`2001:db8:1:2::/64`),
 * since one subscriber usually holds a whole /64 and could otherwise rotate addresses.
 */
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { trustedProxyList } from '../config/core-env.js';
import { isLoopbackAddress } from './access/loopback.js';

export const CLIENT_ADDRESS_HEADER = 'edge-connecting-ip';

export interface ClientAddressOptions {
  /** CIDR ranges or addresses of trusted proxies; undefined trusts loopback peers only. */
  trustedProxies?: string[] | undefined;
  logger?: Logger;
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  socket: { remoteAddress?: string | undefined };
}

/** Returns the client key: an IPv4 address, an IPv6 /64 (`a:b:c:d::/64`) or `unknown`. */
export type ClientAddressResolver = (request: RequestLike) => string;

export function createClientAddressResolver(
  options: ClientAddressOptions = {},
): ClientAddressResolver {
  const list = options.trustedProxies ? trustedProxyList(options.trustedProxies) : undefined;
  if (!list) {
    options.logger?.info(
      'TRUSTED_PROXIES is not set: the Edge-Connecting-IP header is believed only from loopback peers; ' +
        'list the edge proxies in TRUSTED_PROXIES when they connect from another machine',
    );
  }
  const trusted = (peer: string) =>
    list
      ? isIP(peer) !== 0 && list.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4')
      : isLoopbackAddress(peer);
  return (request) => {
    const peer = normalize(request.socket.remoteAddress ?? '');
    if (!peer) return 'unknown';
    const header = request.headers[CLIENT_ADDRESS_HEADER];
    const claimed = normalize((Array.isArray(header) ? header[0] : header)?.trim() ?? '');
    return clientKey(claimed && trusted(peer) ? claimed : peer);
  };
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client; a zone id is dropped; '' for a non-address. */
function normalize(address: string): string {
  const unzoned = address.replace(/%.*$/, '');
  if (isIP(unzoned) === 0) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(unzoned);
  return mapped ? mapped[1]! : unzoned;
}

function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address).slice(0, 4);
  return `${groups.map((group) => group.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a dotted IPv4 tail). */
export function expandIpv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

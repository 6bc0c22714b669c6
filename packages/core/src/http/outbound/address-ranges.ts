/**
 * Which IP addresses an outbound request may not reach unless the operator allows them
 * (`ALLOWED_OUTBOUND`): this machine, private networks, link-local (cloud metadata at
 * 169.254.169.254 and fd00:ec2::254 included), CGNAT, and other special-purpose ranges.
 * IPv4 addresses inside IPv6 (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible, NAT64
 * `64:ff9b::/96`) are judged by the IPv4 address they carry.
 */
import { BlockList, isIP } from 'node:net';

const FORBIDDEN_V4: ReadonlyArray<[string, number, string]> = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const FORBIDDEN_V6: ReadonlyArray<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (cloud metadata)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

interface NamedRange {
  list: BlockList;
  name: string;
}

function namedRanges(
  ranges: ReadonlyArray<[string, number, string]>,
  type: 'ipv4' | 'ipv6',
): NamedRange[] {
  return ranges.map(([network, prefix, name]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { list, name };
  });
}

const forbiddenV4 = namedRanges(FORBIDDEN_V4, 'ipv4');
const forbiddenV6 = namedRanges(FORBIDDEN_V6, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (with a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) =>
    parseInt(group, 16),
  );
}

/** The IPv4 address an IPv6 address carries (mapped, compatible or NAT64), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  const v4 = () => {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  };
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(); // ::ffff:a.b.c.d
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return v4(); // ::a.b.c.d (deprecated)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(); // NAT64
  return undefined;
}

/** Why `address` is forbidden (its range's name), or undefined when it is a public address. */
export function forbiddenRange(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return forbiddenV4.find(({ list }) => list.check(address, 'ipv4'))?.name;
  if (family !== 6) return 'not an IP address';
  const inner = embeddedIpv4(address);
  if (inner !== undefined) {
    const reason = forbiddenRange(inner);
    return reason === undefined ? undefined : `${reason}, as IPv4 inside IPv6`;
  }
  return forbiddenV6.find(({ list }) => list.check(address, 'ipv6'))?.name;
}

/** `ALLOWED_OUTBOUND` entries (addresses or CIDR ranges) as a list to check against. */
export function allowList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(address) === 0)
      throw new Error(`ALLOWED_OUTBOUND: ${entry} is not an address or CIDR range`);
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** Whether `allowed` lists `address` (an IPv4 address inside IPv6 counts as itself). */
export function isAllowed(allowed: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 4) return allowed.check(address, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIpv4(address);
  return allowed.check(address, 'ipv6') || (inner !== undefined && allowed.check(inner, 'ipv4'));
}

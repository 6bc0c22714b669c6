import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClientAddressResolver, createLogger } from '../../src/index.js';

const request = (peer: string | undefined, header?: string | string[]) => ({
  headers: header === undefined ? {} : { 'edge-connecting-ip': header },
  socket: { remoteAddress: peer },
});

test('without TRUSTED_PROXIES the header is believed only from a loopback peer, and start-up says so', () => {
  const lines: string[] = [];
  const logger = createLogger({ service: 't' });
  logger.info = ((message: string) => void lines.push(message)) as typeof logger.info;
  const resolve = createClientAddressResolver({ logger });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /only from loopback peers/);
  assert.equal(resolve(request('127.0.0.1', '203.0.113.7')), '203.0.113.7');
  assert.equal(resolve(request('::1', '203.0.113.7')), '203.0.113.7');
  assert.equal(resolve(request('::ffff:127.0.0.2', '203.0.113.7')), '203.0.113.7');
  // A remote client cannot choose its own identity.
  assert.equal(resolve(request('198.51.100.9', '203.0.113.7')), '198.51.100.9');
  assert.equal(resolve(request('10.0.0.9', '127.0.0.1')), '10.0.0.9');
  assert.equal(resolve(request('10.0.0.9')), '10.0.0.9');
  assert.equal(lines.length, 1);
});

test('with TRUSTED_PROXIES the header is believed only from a listed peer (loopback is then not special)', () => {
  const resolve = createClientAddressResolver({ trustedProxies: ['10.0.0.0/8', '2001:db8::/32'] });
  assert.equal(resolve(request('10.1.2.3', '203.0.113.7')), '203.0.113.7');
  assert.equal(resolve(request('::ffff:10.1.2.3', '203.0.113.7')), '203.0.113.7');
  assert.equal(resolve(request('2001:db8::1', '198.51.100.1')), '198.51.100.1');
  assert.equal(resolve(request('192.0.2.1', '203.0.113.7')), '192.0.2.1');
  assert.equal(resolve(request('127.0.0.1', '203.0.113.7')), '127.0.0.1');
});

test('IPv6 clients are keyed per /64, from the socket or from a trusted header', () => {
  const resolve = createClientAddressResolver({});
  const a = resolve(request('2001:db8:aa:bb:1:2:3:4'));
  const b = resolve(request('2001:0db8:00aa:00bb:ffff::9'));
  assert.equal(a, '2001:db8:aa:bb::/64');
  assert.equal(b, a);
  assert.notEqual(resolve(request('2001:db8:aa:bc::1')), a);
  assert.equal(resolve(request('::1', '2001:db8::5')), '2001:db8:0:0::/64');
  assert.equal(resolve(request('fe80::1%eth0')), 'fe80:0:0:0::/64');
  assert.equal(resolve(request('::1', '64:ff9b::192.0.2.1')), '64:ff9b:0:0::/64');
});

test('a header that is not an IP address is ignored; mapped IPv4 is normalised; no peer is unknown', () => {
  const open = createClientAddressResolver({});
  const resolve = createClientAddressResolver({ trustedProxies: [] });
  assert.equal(open(request('127.0.0.1', 'not-an-ip')), '127.0.0.1');
  assert.equal(open(request('127.0.0.1', ['198.51.100.4', '1.1.1.1'])), '198.51.100.4');
  assert.equal(open(request('127.0.0.1', '::ffff:198.51.100.4')), '198.51.100.4');
  assert.equal(resolve(request('::ffff:192.0.2.5', '203.0.113.7')), '192.0.2.5');
  assert.equal(open(request(undefined, '203.0.113.7')), 'unknown');
});

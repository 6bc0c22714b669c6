import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClientAddressResolver, createLogger } from '../../src/index.js';

const request = (peer: string, header?: string | string[]) => ({
  headers: header === undefined ? {} : { 'edge-connecting-ip': header },
  socket: { remoteAddress: peer },
});

test('without TRUSTED_PROXIES the header is believed, and a warning is logged once', () => {
  const lines: string[] = [];
  const logger = createLogger({ service: 't' });
  logger.warn = ((message: string) => void lines.push(message)) as typeof logger.warn;
  const resolve = createClientAddressResolver({ logger });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /only through the edge proxy/);
  assert.equal(resolve(request('10.0.0.9', '203.0.113.7')), '203.0.113.7');
  assert.equal(resolve(request('10.0.0.9')), '10.0.0.9');
  assert.equal(lines.length, 1);
});

test('with TRUSTED_PROXIES the header is believed only from a trusted peer', () => {
  const resolve = createClientAddressResolver({ trustedProxies: ['10.0.0.0/8', '2001:db8::/32'] });
  assert.equal(resolve(request('10.1.2.3', '203.0.113.7')), '203.0.113.7');
  assert.equal(resolve(request('::ffff:10.1.2.3', '203.0.113.7')), '203.0.113.7');
  assert.equal(resolve(request('2001:db8::1', '198.51.100.1')), '198.51.100.1');
  assert.equal(resolve(request('192.0.2.1', '203.0.113.7')), '192.0.2.1');
});

test('a header that is not an IP address is ignored; mapped IPv4 peers are normalised', () => {
  const resolve = createClientAddressResolver({ trustedProxies: [] });
  const open = createClientAddressResolver({});
  assert.equal(open(request('10.0.0.1', 'not-an-ip')), '10.0.0.1');
  assert.equal(open(request('10.0.0.1', ['198.51.100.4', '1.1.1.1'])), '198.51.100.4');
  assert.equal(resolve(request('::ffff:192.0.2.5', '203.0.113.7')), '192.0.2.5');
});

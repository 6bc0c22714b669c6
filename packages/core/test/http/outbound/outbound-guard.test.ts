/**
 * The outbound guard (issue 15): names resolving into each forbidden range are refused
 * before a connection is made, the connection uses the address that was checked, each
 * redirect hop is checked, and answers are capped in size and time. Names come from an
 * injected resolver; the servers are loopback servers allowed explicitly.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  allowedOutbound,
  createOutboundGuard,
  forbiddenRange,
  OutboundLimitError,
  OutboundRefusedError,
  type Resolver,
} from '../../../src/index.js';

const FORBIDDEN: Record<string, string> = {
  'loopback.test': '127.0.0.1',
  'loopback-other.test': '127.8.9.10',
  'ten.test': '10.0.0.5',
  'one-seven-two.test': '172.16.3.4',
  'one-nine-two.test': '192.168.1.1',
  'cgnat.test': '100.64.0.1',
  'metadata.test': '169.254.169.254',
  'zero.test': '0.0.0.0',
  'v6-loopback.test': '::1',
  'v6-ula.test': 'fc00::1',
  'aws-v6-metadata.test': 'fd00:ec2::254',
  'v6-link-local.test': 'fe80::1',
  'mapped-loopback.test': '::ffff:127.0.0.1',
  'mapped-metadata-hex.test': '::ffff:a9fe:a9fe',
  'nat64-private.test': '64:ff9b::a00:1',
  'multicast.test': '224.0.0.1',
};

const family = (address: string) => (address.includes(':') ? 6 : 4);
const table =
  (names: Record<string, string | string[]>): Resolver =>
  async (hostname) => {
    const answer = names[hostname];
    if (answer === undefined)
      throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [answer].flat().map((address) => ({ address, family: family(address) }));
  };

describe('forbidden ranges', () => {
  test('each special-purpose address is named, public ones are not', () => {
    for (const address of Object.values(FORBIDDEN)) assert.ok(forbiddenRange(address), address);
    assert.match(forbiddenRange('169.254.169.254')!, /link-local/);
    assert.match(forbiddenRange('::ffff:10.1.2.3')!, /private, as IPv4 inside IPv6/);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      assert.equal(forbiddenRange(address), undefined, address);
  });

  test('the default allow-list: loopback in local mode, nothing with keys, none on request', () => {
    assert.deepEqual(
      allowedOutbound({
        ALLOWED_OUTBOUND: undefined,
        API_KEYS: undefined,
        API_KEYS_FILE: undefined,
      }),
      ['127.0.0.0/8', '::1'],
    );
    assert.deepEqual(
      allowedOutbound({
        ALLOWED_OUTBOUND: undefined,
        API_KEYS: 'a:0123456789abcdef',
        API_KEYS_FILE: undefined,
      }),
      [],
    );
    assert.deepEqual(
      allowedOutbound({ ALLOWED_OUTBOUND: 'none', API_KEYS: undefined, API_KEYS_FILE: undefined }),
      [],
    );
    assert.deepEqual(
      allowedOutbound({
        ALLOWED_OUTBOUND: ['10.0.0.0/8'],
        API_KEYS: undefined,
        API_KEYS_FILE: undefined,
      }),
      ['10.0.0.0/8'],
    );
  });
});

describe('outbound guard', () => {
  let server: http.Server;
  let base: string;
  let port: number;
  const seen: http.IncomingHttpHeaders[] = [];

  before(async () => {
    server = http.createServer((request, response) => {
      seen.push(request.headers);
      const url = new URL(request.url ?? '/', 'http://x');
      const to = url.searchParams.get('to');
      if (url.pathname === '/redirect' && to) {
        response.writeHead(302, { location: to }).end();
      } else if (url.pathname === '/big') {
        response.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
        response.end(Buffer.alloc(2 * 1024 * 1024, 65));
      } else if (url.pathname === '/chunked') {
        response.writeHead(200);
        for (let i = 0; i < 32; i += 1) response.write(Buffer.alloc(64 * 1024, 66));
        response.end();
      } else if (url.pathname === '/slow') {
        // never answers: the guard's time limit ends it
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' }).end(`hello ${request.method}`);
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
  });

  test('a name resolving into any forbidden range is refused, naming the range', async () => {
    const guard = createOutboundGuard({ resolve: table(FORBIDDEN) });
    for (const [name, address] of Object.entries(FORBIDDEN)) {
      await assert.rejects(guard.fetch(`http://${name}:${port}/`), (error: Error) => {
        assert.ok(error instanceof OutboundRefusedError, `${name}: ${error.message}`);
        assert.match(error.message, new RegExp(address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        assert.match(error.message, /ALLOWED_OUTBOUND/);
        return true;
      });
      await assert.rejects(guard.check(`http://${name}/`), OutboundRefusedError);
    }
    assert.equal(seen.length, 0, 'no request reached the server');
  });

  test('IP literals are refused too (they never go through the resolver)', async () => {
    const guard = createOutboundGuard({ resolve: table({}) });
    for (const url of [
      `${base}/`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:127.0.0.1]:${port}/`,
    ])
      await assert.rejects(guard.fetch(url), OutboundRefusedError, url);
    assert.equal(seen.length, 0);
  });

  test('a name with one forbidden answer among public ones is refused', async () => {
    const guard = createOutboundGuard({
      resolve: table({ 'mixed.test': ['93.184.216.34', '10.0.0.1'] }),
    });
    await assert.rejects(guard.fetch('http://mixed.test/'), OutboundRefusedError);
  });

  test('ALLOWED_OUTBOUND lets a listed address through, connecting to the address that was checked', async () => {
    let calls = 0;
    const guard = createOutboundGuard({
      allowed: ['127.0.0.1'],
      resolve: async (hostname) => {
        calls += 1;
        assert.equal(hostname, 'receiver.test');
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const response = await guard.fetch(`http://receiver.test:${port}/hello`, {
      method: 'POST',
      body: 'x',
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'hello POST');
    assert.equal(seen.at(-1)?.host, `receiver.test:${port}`, 'the Host header keeps the name');
    assert.equal(calls, 1, 'one resolution, used for both the check and the connection');
  });

  test('DNS rebinding: a name that answers allowed, then forbidden, is checked on the answer connected to', async () => {
    const answers = ['127.0.0.1', '10.0.0.7'];
    const guard = createOutboundGuard({
      allowed: ['127.0.0.1'],
      resolve: async () => [{ address: answers.shift() ?? '10.0.0.7', family: 4 }],
    });
    await guard.check(`http://rebind.test:${port}/`); // first answer: allowed
    await assert.rejects(
      guard.fetch(`http://rebind.test:${port}/`),
      /\(10\.0\.0\.7\) is in a private range/,
    );
  });

  test('each redirect is checked: into a forbidden literal or name it is refused', async () => {
    const guard = createOutboundGuard({
      allowed: ['127.0.0.1'],
      resolve: table({ 'internal.test': '10.1.2.3' }),
    });
    for (const target of [
      'http://169.254.169.254/latest/meta-data/',
      'http://internal.test/admin',
      `http://[::1]:${port}/`,
    ]) {
      const before = seen.length;
      await assert.rejects(
        guard.fetch(`${base}/redirect?to=${encodeURIComponent(target)}`),
        OutboundRefusedError,
        target,
      );
      assert.equal(seen.length, before + 1, 'only the first hop was requested');
    }
    const followed = await guard.fetch(`${base}/redirect?to=${encodeURIComponent('/final')}`);
    assert.equal(await followed.text(), 'hello GET');
  });

  test('credentials do not follow a redirect to another origin', async () => {
    const other = http.createServer((request, response) => {
      response.end(JSON.stringify({ authorization: request.headers.authorization ?? null }));
    });
    other.listen(0, '127.0.0.1');
    await once(other, 'listening');
    const to = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
    const guard = createOutboundGuard({ allowed: ['127.0.0.1'] });
    const response = await guard.fetch(`${base}/redirect?to=${encodeURIComponent(to)}`, {
      headers: { authorization: 'Bearer secret' },
    });
    assert.deepEqual(await response.json(), { authorization: null });
    other.close();
  });

  test('answers are capped in size and time', async () => {
    const guard = createOutboundGuard({ allowed: ['127.0.0.1'] });
    // A length past the cap is refused before the body is read.
    await assert.rejects(guard.fetch(`${base}/big`, { maxBytes: 1024 * 1024 }), OutboundLimitError);
    // Without a length the cap applies while the body is read.
    const chunked = await guard.fetch(`${base}/chunked`, { maxBytes: 1024 * 1024 });
    await assert.rejects(chunked.arrayBuffer(), OutboundLimitError);
    assert.equal(
      (await (await guard.fetch(`${base}/big`)).arrayBuffer()).byteLength,
      2 * 1024 * 1024,
    );
    await assert.rejects(guard.fetch(`${base}/slow`, { timeoutMs: 200 }), (error: Error) =>
      ['TimeoutError', 'AbortError'].includes(error.name),
    );
  });

  test('agents for http.request check literal and named peers at connect time', async () => {
    const guard = createOutboundGuard({ resolve: table(FORBIDDEN) });
    const get = (url: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(url, { agent: guard.agents.http }, (response) => resolve(response.statusCode ?? 0))
          .on('error', reject);
      });
    await assert.rejects(get(`${base}/`), OutboundRefusedError);
    await assert.rejects(get(`http://metadata.test:${port}/`), OutboundRefusedError);
    const allowed = createOutboundGuard({ allowed: ['127.0.0.0/8'], resolve: table(FORBIDDEN) });
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get(`http://loopback.test:${port}/`, { agent: allowed.agents.http }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        })
        .on('error', reject);
    });
    assert.equal(status, 200);
  });
});

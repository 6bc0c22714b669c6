/**
 * The bench's load client reads answers by their `Content-Length` on one keep-alive
 * socket (`bench/raw-http.ts`): every byte of each answer, several answers in turn on one
 * connection, answers split over many writes, and a refusal of what it cannot read.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RawHttpConnection } from '../../bench/raw-http.js';

describe('bench raw HTTP connection', () => {
  let server: Server;
  let port: number;
  const sockets = new Set<unknown>();

  before(async () => {
    server = createServer((request, response) => {
      sockets.add(request.socket);
      const body = Buffer.alloc(Number(new URL(request.url!, 'http://x').searchParams.get('n')));
      for (let i = 0; i < body.length; i++) body[i] = i % 251;
      if (request.url!.startsWith('/chunked')) {
        response.write(body);
        response.end();
      } else if (request.url!.startsWith('/split')) {
        // Headers, then the body in pieces with pauses: the answer ends at its last byte.
        response.writeHead(201, { 'content-length': body.length });
        response.flushHeaders();
        let at = 0;
        const next = () => {
          response.write(body.subarray(at, at + 1000));
          at += 1000;
          if (at < body.length) setTimeout(next, 2);
          else response.end();
        };
        setTimeout(next, 2);
      } else {
        response.writeHead(200, { 'content-length': body.length });
        response.end(body);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (path: string) => Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  const expected = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

  it('reads answers whole, in turn, on one connection', async () => {
    const connection = await RawHttpConnection.open('127.0.0.1', port);
    const before = sockets.size;
    for (const n of [0, 10, 70_000, 3]) {
      const sentAt = performance.now();
      const answer = await connection.send(get(`/plain?n=${n}`));
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, expected(n));
      assert.ok(answer.arrivedAt >= sentAt);
    }
    const split = await connection.send(get('/split?n=5500'));
    assert.equal(split.status, 201);
    assert.deepEqual(split.body, expected(5500));
    assert.equal(sockets.size, before + 1, 'one keep-alive socket for every request');
    connection.close();
  });

  it('refuses an answer without a length', async () => {
    const connection = await RawHttpConnection.open('127.0.0.1', port);
    await assert.rejects(connection.send(get('/chunked?n=10')), /cannot read/);
  });
});

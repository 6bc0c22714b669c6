/**
 * Crafted input before the rate limit: the upload gate (in all and per address), the
 * body idle timeout over a real socket, and replay decoding on a thread.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { isAppError } from '@platform/core';
import { waitFor } from '@platform/testing';
import { createReplayDecoder, ReplayRejected } from '../../src/admission/replay-decoder.js';
import { summarizeReplay } from '../../src/admission/replay-summary.js';
import { createUploadGate } from '../../src/admission/upload-gate.js';
import { buildTestApp, submit } from '../helpers/app.js';
import { corruptLzma, readFixture } from '../helpers/fixtures.js';
import { freshAddress, multipart, openTestEngines, type TestEngines } from '../helpers/harness.js';

function codeOf(fn: () => unknown): { status: number; detail: string } | undefined {
  try {
    fn();
  } catch (error) {
    if (isAppError(error)) return { status: error.statusCode, detail: error.detail };
    throw error;
  }
  return undefined;
}

describe('upload gate', () => {
  test('bounds uploads in all (503) and per address (429); a slot comes back once', () => {
    const gate = createUploadGate({ maxConcurrent: 3, maxPerAddress: 2 });
    const a1 = gate.enter('a');
    gate.enter('a');
    assert.deepEqual(
      codeOf(() => gate.enter('a')),
      { status: 429, detail: 'You already have 2 uploads in progress.' },
    );
    gate.enter('b');
    assert.deepEqual(
      codeOf(() => gate.enter('c')),
      {
        status: 503,
        detail: 'The server is receiving too many uploads. Please try again shortly.',
      },
    );
    a1();
    a1(); // a second release gives nothing more back
    assert.equal(gate.inFlight, 2);
    gate.enter('c');
    assert.ok(codeOf(() => gate.enter('d')));
  });
});

describe('replay decoder', () => {
  test('a thread decodes what the inline path decodes, and refuses what it refuses', async () => {
    const decoder = createReplayDecoder({ threads: 1, inlineMaxBytes: 0, timeoutMs: 30_000 });
    try {
      const tool = readFixture('perfect.osr');
      assert.deepEqual(await decoder.decode(tool), summarizeReplay(new Uint8Array(tool)));
      await assert.rejects(decoder.decode(corruptLzma(tool)), ReplayRejected);
      await assert.rejects(decoder.decode(Buffer.from('not a replay at all')), ReplayRejected);
      // Several at once through one thread: each answer goes to its own caller.
      const many = await Promise.all(
        ['perfect.osr', 'missed.osr', 'other-map.osr'].map((f) => decoder.decode(readFixture(f))),
      );
      assert.deepEqual(
        many.map((m) => m.info.playerName),
        ['perfect.osr', 'missed.osr', 'other-map.osr'].map(
          (f) => summarizeReplay(new Uint8Array(readFixture(f))).info.playerName,
        ),
      );
    } finally {
      await decoder.close();
    }
  });

  test('a decode past its time limit is refused', async () => {
    // The thread takes far longer than 1 ms to start, so the first decode times out.
    const decoder = createReplayDecoder({ threads: 1, inlineMaxBytes: 0, timeoutMs: 1 });
    try {
      await assert.rejects(decoder.decode(readFixture('perfect.osr')), /took too long/);
    } finally {
      await decoder.close();
    }
  });
});

describe('uploads over a real socket (embedded)', () => {
  // Long enough that the requests meant to meet the stalled upload are made before it is
  // cut off, even on a loaded machine (with 300 ms they sometimes were not).
  const bodyIdleTimeoutMs = 2000;
  let engines: TestEngines;
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    engines = await openTestEngines('embedded', {
      bodyIdleTimeoutMs,
      maxUploadsPerAddress: 1,
      inlineDecodeMaxBytes: 0,
    });
    app = await buildTestApp(engines);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  after(async () => {
    await app?.close();
    await engines?.close();
  });

  /** Sends headers and half the body, then nothing; resolves when the server hangs up. */
  function stall(address: string): { closed: Promise<number> } {
    const { body, contentType } = multipart({}, [
      { field: 'replay', filename: 'slow.osr', data: readFixture('perfect.osr') },
    ]);
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    socket.write(
      `POST /v1/render HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\n` +
        `Content-Length: ${body.length}\r\nEdge-Connecting-IP: ${address}\r\n\r\n`,
    );
    socket.write(body.subarray(0, body.length >> 1));
    socket.on('data', () => undefined);
    const closed = new Promise<number>((resolve) =>
      socket.on('close', () => resolve(Date.now() - started)),
    );
    socket.on('error', () => undefined);
    return { closed };
  }

  test('a stalled upload holds its address slot, then is cut off after the idle timeout', async () => {
    const address = freshAddress();
    const slow = stall(address);
    await waitFor('the stalled upload to hold its slot', () => engines.ctx.uploads.inFlight === 1);
    const meanwhile = await submit(app, { address, replay: readFixture('perfect.osr') });
    assert.equal(meanwhile.statusCode, 429);
    assert.equal(meanwhile.json().detail, 'You already have 1 uploads in progress.');
    const other = await submit(app, {
      address: freshAddress(),
      replay: readFixture('perfect.osr'),
    });
    assert.equal(other.statusCode, 202, 'another address is not held up');
    const ms = await slow.closed;
    // Cut off by the idle timer (timers may fire a little early, never much later than
    // the machine lets them), not by anything else.
    assert.ok(ms >= bodyIdleTimeoutMs - 50 && ms < bodyIdleTimeoutMs * 5, `closed after ${ms} ms`);
    // The client sees the socket close before the server has run its own close handler,
    // which gives the slot back: wait for that release, then the address may upload again.
    await waitFor(
      'the cut-off upload to give its slot back',
      () => engines.ctx.uploads.inFlight === 0,
    );
    const after = await submit(app, { address, replay: readFixture('perfect.osr') });
    assert.equal(after.statusCode, 202, 'the slot came back');
  });
});

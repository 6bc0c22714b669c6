/** The beatmap mirror's answer is bounded while it is read, not after. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  BeatmapNotFoundError,
  createBeatmapResolver,
} from '../../src/beatmaps/beatmap-resolver.js';
import { openTestEngines, type TestEngines } from '../helpers/harness.js';

let engines: TestEngines;
let server: Server;
let mirrorUrl: string;
let workDir: string;

before(async () => {
  engines = await openTestEngines('embedded');
  workDir = await mkdtemp(join(tmpdir(), 'render-beatmap-resolver-'));
  // A mirror that never stops sending and announces no length.
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const send = () => {
      while (res.write(chunk));
      res.once('drain', send);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mirrorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/osu/{md5}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await engines.close();
  await rm(workDir, { recursive: true, force: true });
});

test('an endless mirror answer without a length is refused as too large once past the limit', async () => {
  const resolver = createBeatmapResolver({
    mirrorUrl,
    store: engines.ctx.store,
    maxDownloadBytes: 1024 * 1024,
    downloadTimeoutMs: 10_000,
  });
  const started = Date.now();
  await assert.rejects(
    resolver.resolve('a'.repeat(32), workDir),
    (e: unknown) => e instanceof BeatmapNotFoundError && /too large/.test(e.message),
  );
  assert.ok(Date.now() - started < 5000, 'refused while reading, before the timeout');
});

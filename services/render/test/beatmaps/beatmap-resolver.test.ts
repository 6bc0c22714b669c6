/** The beatmap mirror: its answer bounded while read; whole sets (.osz) extracted with the archive bounds and cached. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createOutboundGuard } from '@platform/core';
import { MADE_BEATMAP_MD5, MADE_OSU, madeOsuFixture } from '@platform/testing';
import {
  BeatmapNotFoundError,
  createBeatmapResolver,
} from '../../src/beatmaps/beatmap-resolver.js';
import { DEFAULT_SET_LIMITS } from '../../src/beatmaps/beatmap-set.js';
import { openTestEngines, type TestEngines } from '../helpers/harness.js';
import { makeZip, patchBytes } from '../helpers/zips.js';

let engines: TestEngines;
// The test mirrors are loopback servers, allowed explicitly.
const loopbackAllowed = createOutboundGuard({ allowed: ['127.0.0.1'] });
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
    outbound: loopbackAllowed,
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

describe('a mirror that answers whole beatmap sets (.osz)', () => {
  let setServer: Server;
  let setMirror: string;
  /** What the mirror answers, by MD5; anything else is a 404. */
  const sets = new Map<string, Buffer>();
  let requests = 0;
  const madeOsu = readFileSync(madeOsuFixture(MADE_OSU.beatmap), 'utf8');
  const otherDifficulty = madeOsu.replace(/^Version:.*$/m, 'Version:Other');
  const otherMd5 = createHash('md5').update(otherDifficulty).digest('hex');

  before(async () => {
    setServer = createServer((req, res) => {
      requests += 1;
      const body = sets.get(req.url!.split('/').pop()!);
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/x-osu-beatmap-archive' }).end(body);
    });
    await new Promise<void>((r) => setServer.listen(0, '127.0.0.1', r));
    setMirror = `http://127.0.0.1:${(setServer.address() as AddressInfo).port}/d/{md5}`;
  });
  after(async () => {
    setServer.closeAllConnections();
    await new Promise((r) => setServer.close(r));
  });

  /** The made fixture set as a mirror serves it: both difficulties, audio, background, storyboard, a video. */
  const madeSet = () =>
    makeZip([
      ...[
        MADE_OSU.beatmap,
        MADE_OSU.storyboard,
        MADE_OSU.audio,
        MADE_OSU.background,
        'sb-dot.png',
      ].map((name) => ({ name, data: readFileSync(madeOsuFixture(name)) })),
      { name: 'Made [Other].osu', data: Buffer.from(otherDifficulty) },
      { name: 'sb/layers/fx/glow.png', data: readFileSync(madeOsuFixture('sb-dot.png')) },
      { name: 'video.mp4', data: randomBytes(4096) },
    ]);

  test('the whole set is extracted (audio, background, storyboard, video) and cached once for every difficulty', async () => {
    const data = await madeSet();
    sets.set(MADE_BEATMAP_MD5, data);
    const resolver = createBeatmapResolver({
      mirrorUrl: setMirror,
      outbound: loopbackAllowed,
      store: engines.ctx.store,
    });
    const dir = await mkdtemp(join(workDir, 'job-'));
    const found = await resolver.resolve(MADE_BEATMAP_MD5.toUpperCase(), dir);
    assert.equal(found.source, 'mirror');
    assert.equal(
      createHash('md5').update(readFileSync(found.osuPath)).digest('hex'),
      MADE_BEATMAP_MD5,
    );
    for (const name of [
      MADE_OSU.audio,
      MADE_OSU.background,
      MADE_OSU.storyboard,
      'video.mp4',
      'sb/layers/fx/glow.png',
    ])
      assert.ok(existsSync(join(found.folder, name)), `${name} is beside the .osu`);
    assert.deepEqual(
      readFileSync(join(found.folder, MADE_OSU.audio)),
      readFileSync(madeOsuFixture(MADE_OSU.audio)),
    );
    assert.ok(
      !existsSync(join(dir, 'set.osz')),
      'the downloaded archive is not left in the job folder',
    );

    // The other difficulty of the set, and the same map again, come from the cache: the mirror is not asked.
    const asked = requests;
    sets.clear();
    const again = await resolver.resolve(otherMd5, await mkdtemp(join(workDir, 'job-')));
    assert.equal(again.source, 'cache');
    assert.match(readFileSync(again.osuPath, 'utf8'), /Version:Other/);
    assert.ok(existsSync(join(again.folder, MADE_OSU.audio)));
    const cachedAgain = await resolver.resolve(
      MADE_BEATMAP_MD5,
      await mkdtemp(join(workDir, 'job-')),
    );
    assert.equal(cachedAgain.source, 'cache');
    assert.ok(existsSync(join(cachedAgain.folder, 'video.mp4')));
    assert.equal(requests, asked);
  });

  const refused = async (md5: string, data: Buffer, reason: RegExp) => {
    sets.set(md5, data);
    const resolver = createBeatmapResolver({
      mirrorUrl: setMirror,
      outbound: loopbackAllowed,
      store: engines.ctx.store,
      setLimits: { ...DEFAULT_SET_LIMITS, maxUncompressedBytes: 1024 * 1024 },
    });
    await assert.rejects(
      resolver.resolve(md5, await mkdtemp(join(workDir, 'job-'))),
      (e: unknown) => {
        assert.ok(e instanceof BeatmapNotFoundError);
        assert.match(e.message, reason);
        return true;
      },
    );
    await assert.rejects(engines.ctx.store.get(`beatmaps/${md5}.set`), 'nothing is cached');
  };

  test('a set without the wanted difficulty is refused, naming it', async () => {
    const md5 = 'c'.repeat(32);
    await refused(
      md5,
      await madeSet(),
      new RegExp(`Beatmap ${md5} could not be used: the beatmap set holds no beatmap ${md5}\\.`),
    );
  });

  test('a set with a traversal name is refused before anything is written outside the job folder', async () => {
    const md5 = 'd'.repeat(32);
    const zip = patchBytes(
      await makeZip([{ name: 'xx/evil.osu', data: Buffer.from(madeOsu) }]),
      'xx/evil.osu',
      '../evil.osu',
    );
    await refused(md5, zip, /the beatmap set was refused: relative traversal in entry path/);
    assert.ok(!existsSync(join(workDir, 'evil.osu')));
  });

  test('a zip bomb (past the size bound) is refused from its directory, before extraction', async () => {
    const md5 = 'e'.repeat(32);
    const zip = await makeZip([{ name: 'huge.wav', data: Buffer.alloc(2 * 1024 * 1024) }]);
    await refused(md5, zip, /the beatmap set was refused: archive expands to \d+ bytes/);
  });
});

test('a mirror in a forbidden range (loopback not in ALLOWED_OUTBOUND) is not requested', async () => {
  let requests = 0;
  server.once('request', () => (requests += 1));
  const resolver = createBeatmapResolver({
    mirrorUrl,
    outbound: createOutboundGuard({ allowed: [] }),
    store: engines.ctx.store,
  });
  await assert.rejects(
    resolver.resolve('b'.repeat(32), workDir),
    (e: unknown) =>
      e instanceof BeatmapNotFoundError && /may not be requested.*loopback/.test(e.message),
  );
  assert.equal(requests, 0);
});

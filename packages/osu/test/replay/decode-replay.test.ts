import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeReplay, encodeReplay, modsToString, ReplayDecodeError } from '../../src/index.js';
import { fixture, fixtureNames, skipWithoutFixtures } from '../helpers.js';

const skip = skipWithoutFixtures();

describe('decodeReplay on fixtures', { skip }, () => {
  test('every fixture replay decodes (modes 1-3 with anyMode)', () => {
    for (const name of fixtureNames('.osr')) {
      const r = decodeReplay(fixture(name), { anyMode: true });
      assert.match(r.beatmapMd5, /^[0-9a-f]{32}$/, name);
      assert.ok(r.frames.length > 0, name);
      assert.ok(r.mode >= 0 && r.mode <= 3, name);
    }
  });

  test('header fields and frames of a stable replay', () => {
    const r = decodeReplay(fixture('realmagnolia.osr'));
    assert.equal(r.mode, 0);
    assert.equal(r.version, 20151228);
    assert.equal(r.playerName, 'chocomint');
    assert.equal(r.beatmapMd5, '7df0fe49bab591d6cab538ea711d5244');
    assert.deepEqual([r.n300, r.n100, r.n50, r.misses, r.maxCombo], [498, 16, 0, 0, 746]);
    assert.equal(r.mods, 72);
    assert.equal(modsToString(r.mods), 'DTHD');
    assert.equal(r.seed, 14324978);
    assert.equal(r.onlineScoreId, 2235439177n);
    assert.equal(r.frames.length, 7307);
    assert.equal(typeof r.seed, 'number');
    assert.equal(r.timestamp.toISOString(), '2017-01-18T23:29:02.000Z');
    assert.equal(r.timestampTicks, 636203789420000000n);
    assert.deepEqual(r.frames[0], { time: 0, delta: 0, x: 256, y: -500, keys: 0 });
  });

  test('old replay: 2014 version, no seed frame', () => {
    const r = decodeReplay(fixture('kszlim-replay.osr'));
    assert.equal(r.version, 20140226);
    assert.equal(r.playerName, 'Cookiezi');
    assert.equal(r.frames.length, 17500);
    assert.equal(r.seed, undefined);
    assert.equal(r.onlineScoreId, 1040219800n);
  });

  test('lazer replay (version 30000000)', () => {
    const r = decodeReplay(fixture('kszlim-lazer_standard_format.osr'));
    assert.equal(r.version, 30000000);
    assert.equal(r.playerName, 'MyAngelAku');
    assert.deepEqual([r.n300, r.n100, r.n50, r.misses, r.maxCombo], [435, 56, 1, 37, 73]);
    assert.equal(r.frames.length, 5093);
  });

  test('taiko, catch and mania are refused with UNSUPPORTED_MODE', () => {
    for (const name of ['kszlim-taiko.osr', 'kszlim-ctb.osr', 'kszlim-mania.osr']) {
      assert.throws(
        () => decodeReplay(fixture(name)),
        (e: unknown) => e instanceof ReplayDecodeError && e.code === 'UNSUPPORTED_MODE',
        name,
      );
    }
  });

  test('encode/decode round trip is exact', () => {
    for (const name of [
      'realmagnolia.osr',
      'kszlim-replay.osr',
      'kszlim-lazer_standard_format.osr',
      'tool.osr',
    ]) {
      const r = decodeReplay(fixture(name));
      const again = decodeReplay(encodeReplay(r));
      assert.deepEqual(again, r, name);
    }
  });

  test('online score id width follows the version (long, int, none)', () => {
    const r = decodeReplay(fixture('tool.osr'));
    for (const [version, id, extra] of [
      [20140721, 123456789012n, 8],
      [20121008, 123456n, 4],
      [20120101, 0n, 0],
    ] as const) {
      const bytes = encodeReplay({ ...r, version, onlineScoreId: id });
      const base = encodeReplay({ ...r, version: 20120101, onlineScoreId: 0n }).length;
      assert.equal(bytes.length, base + extra, String(version));
      const again = decodeReplay(bytes);
      assert.equal(again.onlineScoreId, id);
      assert.equal(again.version, version);
    }
  });

  test('Target Practice accuracy is read when the mod is set', () => {
    const r = decodeReplay(fixture('tool.osr'));
    const again = decodeReplay(
      encodeReplay({ ...r, mods: r.mods | 8388608, targetPracticeAccuracy: 0.875 }),
    );
    assert.equal(again.targetPracticeAccuracy, 0.875);
  });

  test('lazer score-info block round trip', () => {
    const r = decodeReplay(fixture('tool.osr'));
    r.version = 30000016;
    r.scoreInfo = { online_id: 42, mods: [{ acronym: 'HD' }], statistics: { great: 1 } };
    const again = decodeReplay(encodeReplay(r));
    assert.deepEqual(again.scoreInfo, r.scoreInfo);
    assert.equal(again.frames.length, r.frames.length);
  });
});

describe('decodeReplay on malformed input', () => {
  test('empty and garbage input raise typed errors', () => {
    assert.throws(
      () => decodeReplay(new Uint8Array(0)),
      (e: unknown) => e instanceof ReplayDecodeError && e.code === 'TRUNCATED',
    );
    assert.throws(
      () => decodeReplay(new Uint8Array([9, 1, 2, 3])),
      (e: unknown) => e instanceof ReplayDecodeError && e.code === 'MALFORMED',
    );
  });

  test('modsToString', () => {
    assert.equal(modsToString(0), 'NM');
    assert.equal(modsToString(8 | 16), 'HRHD');
    assert.equal(modsToString(64 | 512 | 8), 'NCHD');
  });
});

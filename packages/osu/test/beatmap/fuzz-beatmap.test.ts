import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BeatmapParseError, decodeReplay, judgeReplay, parseBeatmap } from '../../src/index.js';
import { madeFixture } from '../helpers.js';

function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

test(
  'fuzz: mutated beatmaps parse or raise BeatmapParseError, and judging them stays bounded',
  { timeout: 60_000 },
  () => {
    const text = madeFixture('made.osu').toString('utf8');
    const replay = decodeReplay(madeFixture('perfect.osr'));
    const rand = rng(99);
    const deadline = Date.now() + 10_000;
    const pieces = [
      '-',
      '9999999',
      '0',
      ',',
      '|',
      'B',
      'P',
      'C',
      'L',
      ':',
      '\n',
      'NaN',
      '1e308',
      '[HitObjects]',
    ];
    let runs = 0;
    while (runs < 300 && Date.now() < deadline) {
      let t = text;
      const edits = 1 + Math.floor(rand() * 6);
      for (let i = 0; i < edits; i++) {
        const at = Math.floor(rand() * t.length);
        const piece = pieces[Math.floor(rand() * pieces.length)]!;
        t = rand() < 0.5 ? t.slice(0, at) + piece + t.slice(at + 1) : t.slice(0, at);
      }
      const start = performance.now();
      try {
        judgeReplay(replay, parseBeatmap(t));
      } catch (err) {
        assert.ok(err instanceof BeatmapParseError, `run ${runs}: ${String(err)}`);
      }
      assert.ok(performance.now() - start < 3000, `run ${runs} took too long`);
      runs++;
    }
    assert.ok(runs >= 50);
  },
);

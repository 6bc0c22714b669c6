import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeReplay, ReplayDecodeError } from '../../src/index.js';
import { madeFixture } from '../helpers.js';

/** Small deterministic PRNG so a failure can be reproduced. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

test('fuzz: mutated and truncated replays never hang or crash', { timeout: 60_000 }, () => {
  const sources = ['perfect.osr', 'missed.osr', 'other-map.osr', 'lazer.osr'].map((n) =>
    madeFixture(n),
  );
  const rand = rng(1234);
  const deadline = Date.now() + 15_000;
  let runs = 0;
  const codes = new Map<string, number>();
  while (runs < 1500 && Date.now() < deadline) {
    const src = sources[runs % sources.length]!;
    let data = Uint8Array.from(src);
    const kind = rand();
    if (kind < 0.3) data = data.subarray(0, Math.floor(rand() * data.length));
    else {
      const flips = 1 + Math.floor(rand() * 8);
      for (let i = 0; i < flips; i++)
        data[Math.floor(rand() * data.length)] = Math.floor(rand() * 256);
    }
    const t = performance.now();
    try {
      decodeReplay(data);
    } catch (err) {
      assert.ok(err instanceof ReplayDecodeError, `unexpected ${String(err)} on run ${runs}`);
      codes.set(err.code, (codes.get(err.code) ?? 0) + 1);
    }
    assert.ok(performance.now() - t < 2000, `run ${runs} took too long`);
    runs++;
  }
  assert.ok(runs >= 100);
  assert.ok((codes.get('TRUNCATED') ?? 0) > 0);
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../src/random/seeded-random.js';

describe('seededRandom', () => {
  it('is mulberry32: seed 1 starts with the reference values', () => {
    const next = seededRandom(1);
    assert.deepEqual(
      [next(), next(), next()],
      [0.6270739405881613, 0.002735721180215478, 0.5274470399599522],
    );
  });

  it('repeats for its seed and differs for another', () => {
    const draw = (seed: number) => {
      const next = seededRandom(seed);
      return Array.from({ length: 50 }, next);
    };
    assert.deepEqual(draw(21), draw(21));
    assert.notDeepEqual(draw(21), draw(22));
  });

  it('stays in [0, 1) and spreads over it', () => {
    const next = seededRandom(7);
    const tenths = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const value = next();
      assert.ok(value >= 0 && value < 1, `out of range: ${value}`);
      tenths[Math.floor(value * 10)]! += 1;
    }
    for (const count of tenths) assert.ok(count > 900 && count < 1100, `uneven: ${tenths}`);
  });

  it('takes any number as a seed, as a 32-bit integer', () => {
    const draw = (seed: number) => seededRandom(seed)();
    assert.equal(draw(2 ** 32 + 5), draw(5));
    assert.equal(draw(-1), draw(2 ** 32 - 1));
  });
});

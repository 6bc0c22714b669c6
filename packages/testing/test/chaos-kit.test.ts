import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindsInRounds, seededRandom } from '../src/chaos-kit.js';

test('kindsInRounds draws every kind once in each round, in a seeded order', () => {
  const kinds = ['kill', 'cut', 'stall', 'disk full', 'power loss'];
  const draw = (seed: number) => {
    const next = kindsInRounds(kinds, seededRandom(seed));
    return Array.from({ length: kinds.length * 3 }, next);
  };
  const drawn = draw(22);
  for (let round = 0; round < 3; round += 1)
    assert.deepEqual(
      [...drawn.slice(round * kinds.length, (round + 1) * kinds.length)].sort(),
      [...kinds].sort(),
      `round ${round + 1} holds every kind once`,
    );
  assert.deepEqual(draw(22), drawn, 'the same seed draws the same schedule');
  assert.notDeepEqual(draw(23), drawn, 'another seed draws another schedule');
  assert.notDeepEqual(drawn.slice(0, 5), drawn.slice(5, 10), 'each round is shuffled again');
});

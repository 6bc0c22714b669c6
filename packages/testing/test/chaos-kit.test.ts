import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '@platform/core';
import { assertEveryKindDrawn, kindsInRounds } from '../src/chaos-kit.js';

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

test('assertEveryKindDrawn holds a run to the kinds it names', () => {
  const run = (rows: string) =>
    `[chaos 09:00:00] seed 22, 3 faults of kill -9 nats, cut nats, disk full; engines postgres\n| fault | count |\n| --- | --- |\n${rows}`;
  assertEveryKindDrawn(run('| kill -9 nats | 1 |\n| cut nats | 1 |\n| disk full | 1 |\n'));
  assert.throws(
    () => assertEveryKindDrawn(run('| kill -9 nats | 2 |\n| cut nats | 1 |\n')),
    /no disk full fault drawn/,
  );
  assert.throws(() => assertEveryKindDrawn('| kill | 1 |'), /does not name its fault kinds/);
  // Analytics' rows name the step after the kind.
  assertEveryKindDrawn(
    'seed 21, 2 faults of kill, power-loss; folder /tmp/x\n| kill after step 1 | 1 |\n| power-loss after step 0 | 1 |\n',
  );
});

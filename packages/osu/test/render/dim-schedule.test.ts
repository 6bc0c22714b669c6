import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DimSchedule } from '../../src/render/dim-schedule.js';

describe('DimSchedule: intro, in-game and break dims', () => {
  // first object appears at 2000 ms; one break from 10 s to 14 s; DT (1.5x)
  const s = new DimSchedule(0.8, 0, 0.3, 2000, [{ start: 10000, end: 14000 }], 1.5);

  test('steady dims', () => {
    assert.equal(s.at(0).value, 0, 'intro');
    assert.equal(s.at(5000).value, 0.8, 'playing');
    assert.equal(s.at(12000).value, 0.3, 'in the break');
    assert.equal(s.at(20000).value, 0.8, 'after the break');
  });

  test('half-second fades (of real time) between them', () => {
    // 500 ms real time at 1.5x is 750 ms of map time
    assert.ok(Math.abs(s.at(2000 - 375).value - 0.4) < 1e-9, 'half way into the play');
    assert.ok(Math.abs(s.at(10000 + 375).value - 0.55) < 1e-9, 'half way into the break');
    assert.ok(Math.abs(s.at(14000 - 375).value - 0.55) < 1e-9, 'half way out of it');
    const d = s.at(10000 + 375);
    assert.deepEqual([d.from, d.to, d.mix], [0.8, 0.3, 0.5]);
  });

  test('only the dims in use are drawn beforehand', () => {
    assert.deepEqual(s.levels().sort(), [0, 0.3, 0.8]);
    assert.deepEqual(new DimSchedule(0.8, 0.8, 0.3, 0, [], 1).levels(), [0.8]);
  });
});

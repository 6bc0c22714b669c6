import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { decodeReplay, judgeReplay, modsSpeed, parseBeatmap } from '../../../src/index.js';
import { lifeAt } from '../../../src/render/draw/hp-bar.js';
import { JudgementTimeline } from '../../../src/render/draw/judgement-timeline.js';
import { madeOsuFixture } from '@platform/testing';

describe('HUD state over time', () => {
  test('after the last event the counts and UR are the judgement summary; before the first, zero', () => {
    // the made plays: every object hit, then every object missed (two columns move)
    const beatmap = parseBeatmap(readFileSync(madeOsuFixture('made.osu'), 'utf8'));
    for (const name of ['perfect.osr', 'missed.osr']) {
      const replay = decodeReplay(readFileSync(madeOsuFixture(name)));
      const j = judgeReplay(replay, beatmap);
      assert.ok(j.events.length > 0, `${name} has judgement events`);
      const tl = new JudgementTimeline(j, modsSpeed(replay.mods));
      const end = tl.stateAt(j.events[j.events.length - 1]!.time + 1);
      assert.deepEqual(
        [end.n300, end.n100, end.n50, end.misses],
        [j.n300, j.n100, j.n50, j.misses],
      );
      assert.ok(Math.abs(end.unstableRate - j.unstableRate) < 1e-6);
      const start = tl.stateAt(j.events[0]!.time - 1);
      assert.deepEqual(
        [start.n100, start.misses, start.sliderBreaks, start.unstableRate],
        [0, 0, 0, 0],
      );
      // counts never go down
      let prev = start;
      for (let t = j.events[0]!.time; t < j.events[j.events.length - 1]!.time; t += 37) {
        const s = tl.stateAt(t);
        assert.ok(s.n300 >= prev.n300 && s.n100 >= prev.n100 && s.misses >= prev.misses);
        prev = s;
      }
    }
  });

  test('life is the recorded graph interpolated, held at its ends, clamped', () => {
    const pts = [
      { time: 1000, life: 1 },
      { time: 3000, life: 0.5 },
      { time: 4000, life: 1.2 },
    ];
    assert.equal(lifeAt(pts, 0), 1);
    assert.equal(lifeAt(pts, 2000), 0.75);
    assert.equal(lifeAt(pts, 3000), 0.5);
    assert.equal(lifeAt(pts, 9000), 1);
    assert.equal(lifeAt([], 5), 1);
  });
});

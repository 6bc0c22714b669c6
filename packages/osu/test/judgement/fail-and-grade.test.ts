import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { failOf, judgementUntil } from '../../src/judgement/fail.js';
import { gradeOf } from '../../src/judgement/grade.js';
import type { HitResult, JudgementEvent, JudgementResult } from '../../src/judgement/types.js';
import { Mods } from '../../src/replay/mods.js';

/** A judgement made of `hits` (time, result) and slider breaks at `breaks`. */
function judgement(hits: [number, HitResult][], breaks: number[] = []): JudgementResult {
  const events: JudgementEvent[] = [];
  let combo = 0;
  const all = [
    ...hits.map(([time, result]) => ({ time, kind: 'hit' as const, result })),
    ...breaks.map((time) => ({ time, kind: 'sliderbreak' as const, result: 0 as HitResult })),
  ].sort((a, b) => a.time - b.time);
  let points = 0;
  let judged = 0;
  for (const e of all) {
    if (e.kind === 'hit') {
      combo = e.result === 0 ? 0 : combo + 1;
      points += e.result;
      judged++;
    } else combo = 0;
    events.push({
      ...e,
      objectIndex: 0,
      x: 0,
      y: 0,
      combo,
      score: points * 10,
      accuracy: judged ? points / (300 * judged) : 1,
    });
  }
  const count = (r: HitResult): number => hits.filter(([, x]) => x === r).length;
  return {
    n300: count(300),
    n100: count(100),
    n50: count(50),
    misses: count(0),
    maxCombo: Math.max(0, ...events.map((e) => e.combo)),
    unstableRate: 0,
    accuracy: events.at(-1)?.accuracy ?? 1,
    score: events.at(-1)?.score ?? 0,
    hitErrors: hits.map(([time]) => time % 7),
    hitErrorTimes: hits.map(([time]) => time),
    events,
    objectResults: [],
    headJudgedAt: [],
    headHit: [],
  };
}

describe('gradeOf (stable ranking)', () => {
  const g = (n300: number, n100: number, n50: number, misses: number, mods = 0): string =>
    gradeOf({ n300, n100, n50, misses }, mods);
  test('SS, S, A, B, C, D by the ratio of 300s, 50s and misses', () => {
    assert.equal(g(100, 0, 0, 0), 'X');
    assert.equal(g(95, 5, 0, 0), 'S');
    assert.equal(g(95, 3, 2, 0), 'A', '2% of 50s is not an S');
    assert.equal(g(95, 4, 0, 1), 'A', 'a miss is not an S');
    assert.equal(g(85, 15, 0, 0), 'A');
    assert.equal(g(85, 14, 0, 1), 'B', 'over 80% with a miss is a B');
    assert.equal(g(75, 25, 0, 0), 'B');
    assert.equal(g(75, 24, 0, 1), 'C');
    assert.equal(g(65, 35, 0, 0), 'C');
    assert.equal(g(60, 40, 0, 0), 'D', 'exactly 60% is not over 60%');
  });
  test('Hidden or Flashlight make SS and S silver, not the others', () => {
    assert.equal(g(100, 0, 0, 0, Mods.Hidden), 'XH');
    assert.equal(g(95, 5, 0, 0, Mods.Flashlight), 'SH');
    assert.equal(g(85, 15, 0, 0, Mods.Hidden), 'A');
  });
});

describe('failOf', () => {
  const j = judgement(
    [
      [1000, 300],
      [2000, 100],
      [3000, 300],
      [4000, 0],
      [5000, 300],
    ],
    [3500],
  );
  test('Sudden Death fails at the first combo break (a slider break counts)', () => {
    assert.deepEqual(failOf(j, Mods.SuddenDeath, []), { time: 3500, reason: 'sudden death' });
  });
  test('Perfect fails at the first judgement short of a 300', () => {
    assert.deepEqual(failOf(j, Mods.Perfect | Mods.SuddenDeath, []), {
      time: 2000,
      reason: 'perfect',
    });
  });
  test('No Fail never fails, even at zero health', () => {
    assert.equal(failOf(j, Mods.NoFail, [{ time: 4000, life: 0 }]), undefined);
  });
  test("health: the game's life graph at zero for good fails; a recovery (Easy's lives) does not", () => {
    assert.equal(failOf(j, 0, []), undefined, 'no graph, no fail');
    const recovered = [
      { time: 0, life: 1 },
      { time: 2000, life: 0 },
      { time: 4000, life: 0.3 },
    ];
    assert.equal(failOf(j, Mods.Easy, recovered), undefined);
    const died = [...recovered, { time: 4200, life: 0 }, { time: 4400, life: 0 }];
    assert.deepEqual(failOf(j, 0, died), { time: 4200, reason: 'health' });
  });
});

describe('judgementUntil', () => {
  test('counts, combo, score and hit errors as they stood at the time', () => {
    const full = judgement([
      [1000, 300],
      [2000, 100],
      [3000, 300],
      [4000, 0],
      [5000, 300],
    ]);
    const cut = judgementUntil(full, 3000, 1);
    assert.deepEqual([cut.n300, cut.n100, cut.n50, cut.misses], [2, 1, 0, 0]);
    assert.equal(cut.maxCombo, 3);
    assert.equal(cut.events.length, 3);
    assert.equal(cut.score, full.events[2]!.score);
    assert.deepEqual(cut.hitErrorTimes, [1000, 2000, 3000]);
    assert.equal(cut.hitErrors.length, 3);
  });
});

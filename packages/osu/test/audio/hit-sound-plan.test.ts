import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planHitSounds } from '../../src/audio/hit-sound-plan.js';
import { parseBeatmap, preparePlayable } from '../../src/index.js';
import type { JudgementResult } from '../../src/judgement/types.js';

const MAP = `osu file format v14

[General]
SampleSet: Soft

[Difficulty]
SliderMultiplier:1
SliderTickRate:1

[TimingPoints]
0,500,4,0,0,60,1,0
1900,-100,4,3,2,80,0,0

[HitObjects]
100,100,1000,1,2,0:0:0:0:
200,100,1500,1,8,1:2:3:40:
300,100,1700,1,0,0:0:0:0:boom.wav
100,200,2000,2,0,L|300:200,2,200,4|0|2,0:0|0:0|1:3,0:0:0:0:
256,192,5000,12,4,6000,0:0:0:0:
`;

/** A judgement where every listed event happened. */
function judged(
  events: { time: number; objectIndex: number; kind: 'hit' | 'head' | 'tick'; result: 300 | 0 }[],
): JudgementResult {
  return {
    events: events.map((e) => ({ ...e, x: 0, y: 0, combo: 0, score: 0, accuracy: 1 })),
  } as unknown as JudgementResult;
}

describe('planHitSounds', () => {
  const play = preparePlayable(parseBeatmap(MAP), 0);
  const slider = play.objects[3]!;
  const names = (s: { candidates: { name: string }[] }): string =>
    s.candidates.map((c) => c.name).join(',');

  test('circles: inherited set from [General], additions, custom set/index/volume, custom file', () => {
    const plan = planHitSounds(
      play,
      judged([
        { time: 1003, objectIndex: 0, kind: 'hit', result: 300 },
        { time: 1498, objectIndex: 1, kind: 'hit', result: 300 },
        { time: 1700, objectIndex: 2, kind: 'hit', result: 300 },
      ]),
    );
    assert.deepEqual(
      plan.map((s) => [s.time, names(s), s.volume]),
      [
        [1003, 'soft-hitnormal', 0.6],
        [1003, 'soft-hitwhistle', 0.6],
        [1498, 'normal-hitnormal3,normal-hitnormal', 0.4],
        [1498, 'soft-hitclap3,soft-hitclap', 0.4],
        [1700, 'boom', 0.6],
      ],
    );
    assert.equal(plan[2]!.candidates[0]!.beatmapOnly, true);
    assert.equal(plan[2]!.candidates[1]!.beatmapOnly, false);
  });

  test('a missed circle is silent', () => {
    assert.deepEqual(
      planHitSounds(play, judged([{ time: 1100, objectIndex: 0, kind: 'hit', result: 0 }])),
      [],
    );
  });

  test('slider head, tick, repeat and end take their edge sounds and the timing point of their time', () => {
    const tick = slider.events.find((e) => e.kind === 'tick')!;
    const repeat = slider.events.find((e) => e.kind === 'repeat')!;
    const end = slider.events.find((e) => e.kind === 'end')!;
    const plan = planHitSounds(
      play,
      judged([
        { time: 2004, objectIndex: 3, kind: 'head', result: 300 },
        { time: tick.time, objectIndex: 3, kind: 'tick', result: 300 },
        { time: repeat.time, objectIndex: 3, kind: 'tick', result: 300 },
        { time: end.time, objectIndex: 3, kind: 'tick', result: 300 },
      ]),
    );
    const byTime = plan.map((s) => `${Math.round(s.time)}:${names(s)}`);
    // timing point at 1900: drum, index 2, volume 80; head has the finish bit
    assert.deepEqual(byTime.slice(0, 2), [
      '2004:drum-hitnormal2,drum-hitnormal',
      '2004:drum-hitfinish2,drum-hitfinish',
    ]);
    assert.ok(
      byTime.includes(`${Math.round(tick.time)}:drum-slidertick2,drum-slidertick`),
      byTime.join(' '),
    );
    assert.ok(
      byTime.includes(`${Math.round(repeat.time)}:drum-hitnormal2,drum-hitnormal`),
      byTime.join(' '),
    );
    // end edge: whistle bit, edge set 1:3 (normal sounds from the normal set, additions from drum)
    assert.ok(
      byTime.includes(`${slider.endTime}:normal-hitnormal2,normal-hitnormal`),
      byTime.join(' '),
    );
    assert.ok(
      byTime.includes(`${slider.endTime}:drum-hitwhistle2,drum-hitwhistle`),
      byTime.join(' '),
    );
    const endSound = plan.find((s) => s.time === slider.endTime)!;
    // two spans: the slider ends where it started
    assert.ok(Math.abs(endSound.x - 100) < 1, `end x ${endSound.x}`);
    assert.equal(endSound.volume, 0.8);
  });

  test('a completed spinner sounds at its end', () => {
    const plan = planHitSounds(
      play,
      judged([{ time: 6000, objectIndex: 4, kind: 'hit', result: 300 }]),
    );
    assert.deepEqual(
      plan.map((s) => [s.time, names(s)]),
      [
        [6000, 'drum-hitnormal2,drum-hitnormal'],
        [6000, 'drum-hitfinish2,drum-hitfinish'],
      ],
    );
  });
});

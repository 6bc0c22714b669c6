/**
 * Rules of the game's judgement, each on a small beatmap and replay built here: when a
 * slider tick is earned, the note lock, and the order of a frame's clicks and expiries.
 * Each case names what an engine without the rule would count instead.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBeatmap } from '../../src/beatmap/parse-beatmap.js';
import { judgeReplay } from '../../src/judgement/judge-replay.js';
import { Mods } from '../../src/replay/mods.js';
import type { Replay, ReplayFrame } from '../../src/replay/types.js';

const K1 = 5; // key 1 (with mouse 1)

/** OD 5 (300/100/50 within 50/100/150 ms), CS 4 (radius 36.48), 100 px a beat (500 ms). */
function beatmap(hitObjects: string[], beatLength = 500): ReturnType<typeof parseBeatmap> {
  return parseBeatmap(
    [
      'osu file format v14',
      '',
      '[General]',
      'StackLeniency: 0.7',
      'Mode: 0',
      '',
      '[Difficulty]',
      'HPDrainRate:5',
      'CircleSize:4',
      'OverallDifficulty:5',
      'ApproachRate:5',
      'SliderMultiplier:1',
      'SliderTickRate:1',
      '',
      '[TimingPoints]',
      `0,${beatLength},4,2,0,100,1,0`,
      '',
      '[HitObjects]',
      ...hitObjects,
      '',
    ].join('\n'),
  );
}

/** A replay of the frames [time, x, y, keys] with `mods` (none by default). */
function replay(frames: [number, number, number, number][], mods = 0): Replay {
  const fs: ReplayFrame[] = frames.map(([time, x, y, keys], i) => ({
    time,
    delta: time - (frames[i - 1]?.[0] ?? 0),
    x,
    y,
    keys,
  }));
  return {
    mode: 0,
    version: 20200101,
    beatmapMd5: '',
    playerName: 'test',
    replayMd5: '',
    n300: 0,
    n100: 0,
    n50: 0,
    gekis: 0,
    katus: 0,
    misses: 0,
    score: 0,
    maxCombo: 0,
    perfect: false,
    mods,
    lifeBar: '',
    lifeBarPoints: [],
    timestamp: new Date(0),
    timestampTicks: 0n,
    frames: fs,
    seed: undefined,
    rawFrames: fs,
    onlineScoreId: 0n,
    targetPracticeAccuracy: undefined,
    scoreInfo: undefined,
  };
}

/**
 * Two circles, at (100,100) at 1000 ms and at (300,100) at `secondAt`, played by a cursor
 * resting on the second one and pressing key 1 at the times in `presses` (10 ms each).
 */
function twoCircles(secondAt: number, presses: number[]): ReturnType<typeof judgeReplay> {
  const map = beatmap(['100,100,1000,1,0,0:0:0:0:', `300,100,${secondAt},1,0,0:0:0:0:`]);
  const frames: [number, number, number, number][] = [[900, 300, 100, 0]];
  for (const t of presses) frames.push([t - 1, 300, 100, 0], [t, 300, 100, K1]);
  frames.push([presses.at(-1)! + 10, 300, 100, 0], [1500, 300, 100, 0]);
  return judgeReplay(replay(frames), map);
}

const counts = (j: ReturnType<typeof judgeReplay>): number[] => [
  j.n300,
  j.n100,
  j.n50,
  j.misses,
  j.maxCombo,
];

describe('slider ticks: earned only by tracking that began by their time', () => {
  // 1000 ms slider from (100,200) to (300,200): one tick at 1500 (x 200), legacy end at 1964
  const map = beatmap(['100,200,1000,2,0,L|300:200,1,200']);
  const play = (backOnBallAt: number) =>
    judgeReplay(
      replay([
        [900, 100, 200, 0],
        [1000, 100, 200, K1], // head hit, 300
        [1100, 150, 330, K1], // 130 px off the ball: tracking lost
        [backOnBallAt, 100 + (backOnBallAt - 1000) / 5, 200, K1], // back on the ball
        [1700, 240, 200, K1],
        [1990, 298, 200, K1],
        [2010, 300, 200, 0],
      ]),
      map,
    );

  test('tracking regained after the tick (first frame past it): the tick is missed, a slider break', () => {
    const j = play(1510);
    // head and end earned, the tick not: 2 of 3 parts is a 100; the end is combo 1
    assert.deepEqual(counts(j), [0, 1, 0, 0, 1]);
    assert.ok(j.events.some((e) => e.kind === 'sliderbreak' && e.time === 1500));
  });

  test('tracking regained before the tick: the tick is earned', () => {
    assert.deepEqual(counts(play(1490)), [1, 0, 0, 0, 3]);
  });
});

describe('a key press that does not hit the head: seen by the slider from the next millisecond', () => {
  // 1000 ms slider from (100,200) to (300,200): tick at 1500, legacy end at 1964. Head hit
  // with key 1 at 1000, tracked to 1900, both keys up at 1930; key 1 pressed again on the
  // ball at `pressAt` (the ball is at x 100 + (t - 1000) / 5).
  const map = beatmap(['100,200,1000,2,0,L|300:200,1,200']);
  const ball = (t: number): number => 100 + (t - 1000) / 5;
  const play = (pressAt: number) => {
    const frames: [number, number, number, number][] = [[900, 100, 200, 0]];
    for (let t = 1000; t <= 1900; t += 20) frames.push([t, ball(t), 200, K1]);
    frames.push([1930, ball(1930), 200, 0], [pressAt, ball(pressAt), 200, K1]);
    frames.push([1990, ball(1990), 200, K1], [2010, 300, 200, 0]);
    return judgeReplay(replay(frames), map);
  };

  test('pressed in the millisecond of the slider end: the end is not earned', () => {
    // the game scores the end before it sees the press (ascension.osr, its slider 479):
    // head and tick earned, end missed: 2 of 3 parts is a 100, combo 2 (an engine that
    // lets the press count at once counts a 300 and combo 3)
    assert.deepEqual(counts(play(1964)), [0, 1, 0, 0, 2]);
  });

  test('pressed one millisecond before the end: the end is earned', () => {
    assert.deepEqual(counts(play(1963)), [1, 0, 0, 0, 3]);
  });

  test('a key held and the cursor back on the ball in the millisecond of the end: earned', () => {
    // 3yomi, tool4, etude: tracking that begins by the cursor reaching the ball counts at once
    const frames: [number, number, number, number][] = [[900, 100, 200, 0]];
    for (let t = 1000; t <= 1900; t += 20) frames.push([t, ball(t), 200, K1]);
    frames.push([1930, ball(1930), 320, K1], [1964, ball(1964), 200, K1]);
    frames.push([1990, ball(1990), 200, K1], [2010, 300, 200, 0]);
    assert.deepEqual(counts(judgeReplay(replay(frames), map)), [1, 0, 0, 0, 3]);
  });

  test('a press that hits the head in the millisecond of a repeat earns the repeat', () => {
    // realkaede.osr, its slider 337: a 20 px slider of 12 slides (100 px a 100 ms beat),
    // repeats every 20 ms from 1020 to 1220, legacy end 1204; the head is hit 100 ms late
    // (a 50 window at OD 5) in the millisecond of the repeat at 1100, the cursor on the head
    const tiny = beatmap(['100,200,1000,2,0,L|120:200,12,20'], 100);
    const frames: [number, number, number, number][] = [
      [900, 100, 200, 0],
      [1099, 100, 200, 0],
    ];
    for (let t = 1100; t <= 1250; t += 10) frames.push([t, t === 1100 ? 100 : 110, 200, K1]);
    frames.push([1260, 110, 200, 0]);
    const j = judgeReplay(replay(frames), tiny);
    // head, the 7 repeats from 1100 and the end: 9 of 13 parts (a 100), combo 9 unbroken
    // (without the head's press counting at once: a break at 1100 and combo 7)
    assert.deepEqual(counts(j), [0, 1, 0, 0, 9]);
  });
});

describe('slider ticks and repeats: judged at their whole millisecond', () => {
  test('a tick at 1500.5 ms is judged by the frame at 1500, not the next one', () => {
    // beats of 500.5 ms: the 1001 ms slider's tick (x 200) falls at 1500.5
    const map = beatmap(['100,200,1000,2,0,L|300:200,1,200'], 500.5);
    const ball = (t: number): number => 100 + ((t - 1000) * 200) / 1001;
    const frames: [number, number, number, number][] = [[900, 100, 200, 0]];
    for (let t = 1000; t <= 1500; t += 50) frames.push([t, ball(t), 200, K1]);
    // key released at 1501, pressed again at 1510: the tick is earned only if judged at 1500
    frames.push([1501, ball(1501), 200, 0]);
    for (let t = 1510; t <= 1970; t += 20) frames.push([t, ball(t), 200, K1]);
    frames.push([2010, 300, 200, 0]);
    const j = judgeReplay(replay(frames), map);
    assert.deepEqual(counts(j), [1, 0, 0, 0, 3]);
    assert.ok(!j.events.some((e) => e.kind === 'sliderbreak'));
  });
});

describe('note lock (the game LegacyHitPolicy)', () => {
  test('a click on a later circle is refused while an earlier one is unjudged', () => {
    // 1050: on the second circle with the first unjudged, refused; the frame at 1159
    // expires the first (its window ended at 1150); 1160: hit, 60 ms late
    const j = twoCircles(1100, [1050, 1160]);
    assert.deepEqual(j.objectResults, [0, 100]);
    assert.deepEqual(j.headJudgedAt, [1150, 1160]);
  });

  test('an earlier object ending within 3 ms of the later one does not lock it', () => {
    // two circles 2 ms apart: the second can be hit first
    assert.deepEqual(twoCircles(1002, [1002]).objectResults, [0, 300]);
  });

  test('a slider locks the objects after it until its end time, not its early legacy end', () => {
    // slider 1000-2000 (legacy end 1964), circle at 2100
    const map = beatmap(['100,200,1000,2,0,L|300:200,1,200', '400,300,2100,1,0,0:0:0:0:']);
    const frames: [number, number, number, number][] = [[900, 100, 200, 0]];
    for (let t = 1000; t <= 1970; t += 10) frames.push([t, 100 + (t - 1000) / 5, 200, K1]);
    frames.push([1975, 400, 300, 0], [1980, 400, 300, K1]); // 120 ms early on the circle
    // the slider is judged at the first frame at or after 2000; the click comes after it
    frames.push([1990, 400, 300, 0], [2050, 400, 300, 0], [2100, 400, 300, K1]);
    frames.push([2120, 400, 300, 0]);
    const j = judgeReplay(replay(frames), map);
    // the click at 1980 is refused (it would have been a 50); the one at 2100 is a 300
    assert.deepEqual(j.objectResults, [300, 300]);
    const sliderHit = j.events.find((e) => e.objectIndex === 0 && e.kind === 'hit')!;
    assert.ok(sliderHit.time >= 2000, `slider judged at ${sliderHit.time}`);
  });
});

describe("a frame's order: its clicks before the heads whose window it passes", () => {
  test('a click in the frame that expires the earlier circle is refused by the note lock', () => {
    // the first circle's window ends at 1150; the frame at 1151 expires it and clicks the second
    const j = twoCircles(1160, [1151]);
    // expiring first would have let the click through as a 300 (9 ms early)
    assert.deepEqual(j.objectResults, [0, 0]);
    assert.deepEqual(counts(j), [0, 0, 0, 2, 0]);
  });
});

describe('Relax: the game makes the clicks (osu.Game.Rulesets.Osu/Mods/OsuModRelax.cs)', () => {
  // every frame here holds no key, as a stable Relax replay: without the made clicks all is missed
  test('a circle is clicked 12 ms before its time when the cursor is on it, a late one when reached', () => {
    const map = beatmap(['100,100,1000,1,0,0:0:0:0:', '300,100,1500,1,0,0:0:0:0:']);
    const frames: [number, number, number, number][] = [
      [900, 100, 100, 0],
      [987, 100, 100, 0], // 13 ms early: not yet
      [988, 100, 100, 0], // RELAX_LENIENCY: clicked, 12 ms early (a 300)
      [1200, 200, 100, 0],
      [1560, 300, 100, 0], // reached 60 ms late: clicked at once (a 100 at OD 5)
      [1700, 300, 100, 0],
    ];
    const j = judgeReplay(replay(frames, Mods.Relax), map);
    assert.deepEqual(counts(j), [1, 1, 0, 0, 2]);
    assert.deepEqual(j.hitErrors, [-12, 60]);
    assert.deepEqual(counts(judgeReplay(replay(frames), map)), [0, 0, 0, 2, 0]);
  });

  test('a slider is held while the cursor follows the ball', () => {
    // 1000 ms slider from (100,200) to (300,200): head, tick at 1500 and end all earned
    const map = beatmap(['100,200,1000,2,0,L|300:200,1,200']);
    const frames: [number, number, number, number][] = [[900, 100, 200, 0]];
    for (let t = 990; t <= 2000; t += 10) frames.push([t, 100 + Math.max(0, t - 1000) / 5, 200, 0]);
    frames.push([2100, 300, 200, 0]);
    assert.deepEqual(counts(judgeReplay(replay(frames, Mods.Relax), map)), [1, 0, 0, 0, 3]);
  });

  test('a spinner is held down, so turning the cursor spins it', () => {
    // 2 s spinner at OD 5: 6 turns needed; the cursor turns 4 times a second around the centre
    const map = beatmap(['256,192,1000,8,0,3000']);
    const frames: [number, number, number, number][] = [[900, 306, 192, 0]];
    for (let t = 1000; t <= 3010; t += 10) {
      const a = ((t - 1000) / 1000) * 4 * 2 * Math.PI;
      frames.push([t, 256 + 50 * Math.cos(a), 192 + 50 * Math.sin(a), 0]);
    }
    assert.deepEqual(counts(judgeReplay(replay(frames, Mods.Relax), map)), [1, 0, 0, 0, 1]);
    assert.deepEqual(counts(judgeReplay(replay(frames), map)), [0, 0, 0, 1, 0]);
  });
});

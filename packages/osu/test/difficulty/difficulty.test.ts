import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { madeOsuFixture } from '@platform/testing';
import { beatmapMd5 } from '../../src/beatmap/beatmap-md5.js';
import { parseBeatmap } from '../../src/beatmap/parse-beatmap.js';
import { preparePlayable } from '../../src/beatmap/playable.js';
import { calculateDifficulty } from '../../src/difficulty/difficulty-calculator.js';
import { erf, erfInv } from '../../src/difficulty/maths.js';
import { calculatePerformance } from '../../src/difficulty/performance.js';
import { ppTimeline } from '../../src/difficulty/pp-timeline.js';
import { judgePlayable } from '../../src/judgement/judge-replay.js';
import { decodeReplay } from '../../src/replay/decode-replay.js';
import { modsToString } from '../../src/replay/mods.js';
import { fixture, fixtureNames, madeFixture, skipWithoutFixtures } from '../helpers.js';

/** The part of rosu-pp-js used here (typed locally: the tests compile without it installed). */
interface Rosu {
  Beatmap: new (bytes: Uint8Array) => { free(): void };
  Performance: new (args: Record<string, unknown>) => {
    calculate(map: object): { pp: number; difficulty: { stars: number } };
  };
}

/** rosu-pp (a dev dependency): an independent implementation of the same calculation. */
const rosu = ((): Rosu | undefined => {
  try {
    return createRequire(import.meta.url)('rosu-pp-js') as Rosu;
  } catch {
    return undefined;
  }
})();
const skipReference =
  skipWithoutFixtures() ||
  (rosu ? false : (process.stderr.write('skip: rosu-pp-js is not installed\n'), 'no rosu-pp-js'));

function scoreOf(r: ReturnType<typeof decodeReplay>) {
  return { n300: r.n300, n100: r.n100, n50: r.n50, misses: r.misses, maxCombo: r.maxCombo };
}

describe('difficulty and performance (calculator version 20250306)', () => {
  test('erf and its inverse to double precision', () => {
    for (const [x, e] of [
      [0.1, 0.1124629160182849],
      [1, 0.8427007929497149],
      [3.5, 0.9999992569016276],
      [-0.7, -0.6778011938374184],
    ] as const)
      assert.ok(Math.abs(erf(x) - e) < 1e-15, `erf(${x})`);
    for (const p of [0.01, 0.5, 0.99]) assert.ok(Math.abs(erf(erfInv(p)) - p) < 1e-15);
  });

  test('the made map: a perfect play is worth PP, a play that hit nothing none; the running PP ends at the final PP', () => {
    const play = (replayName: string) => {
      const replay = decodeReplay(madeFixture(replayName));
      const p = preparePlayable(
        parseBeatmap(readFileSync(madeOsuFixture('made.osu'), 'utf8')),
        replay.mods,
      );
      return { replay, p, difficulty: calculateDifficulty(p) };
    };
    const perfect = play('perfect.osr');
    assert.ok(perfect.difficulty.starRating > 0);
    assert.equal(perfect.difficulty.maxCombo, perfect.replay.maxCombo, 'max combo of the map');
    const difficulty = { ar: perfect.p.ar, od: perfect.p.od, clockRate: 1, mods: 0 };
    const full = calculatePerformance(perfect.difficulty, scoreOf(perfect.replay), difficulty);
    assert.ok(full.pp > 0);
    const running = ppTimeline(perfect.p, judgePlayable(perfect.replay, perfect.p));
    assert.ok(Math.abs(running.at(-1)! - full.pp) < 1e-9, `${running.at(-1)} vs ${full.pp}`);
    assert.ok(
      running.every((v, i) => i === 0 || v >= running[i - 1]! - 1e-9),
      'a perfect play only gains',
    );
    const missed = play('missed.osr');
    assert.equal(calculatePerformance(missed.difficulty, scoreOf(missed.replay), difficulty).pp, 0);
  });

  test('a crafted map of 140,000 circles (past the ~125,000 arguments a spread allows): finite stars, no argument-count overflow', () => {
    const lines = [
      'osu file format v14',
      '[General]',
      'Mode: 0',
      '[Difficulty]',
      'CircleSize:4',
      'OverallDifficulty:8',
      'ApproachRate:9',
      'SliderMultiplier:1.4',
      'SliderTickRate:1',
      '[TimingPoints]',
      '0,300,4,2,0,50,1,0',
      '[HitObjects]',
    ];
    for (let i = 0; i < 140_000; i++)
      lines.push(`${(i * 37) % 512},${(i * 53) % 384},${1000 + i * 30},1,0`);
    const play = preparePlayable(parseBeatmap(lines.join('\n')), 0);
    const d = calculateDifficulty(play);
    assert.equal(d.hitCircleCount, 140_000);
    assert.ok(Number.isFinite(d.starRating) && d.starRating > 0, String(d.starRating));
    assert.ok(Number.isFinite(d.speedNoteCount));
  });

  test(
    'stars and PP of every fixture replay agree with rosu-pp (stable scores, classic accuracy)',
    { skip: skipReference },
    () => {
      const maps = new Map(fixtureNames('.osu').map((f) => [beatmapMd5(fixture(f)), f]));
      let compared = 0;
      for (const name of fixtureNames('.osr')) {
        let replay;
        try {
          replay = decodeReplay(fixture(name));
        } catch {
          continue; // other modes
        }
        const mapName = maps.get(replay.beatmapMd5);
        if (!mapName) continue;
        const play = preparePlayable(parseBeatmap(fixture(mapName).toString('utf8')), replay.mods);
        const ours = calculateDifficulty(play);
        const pp = calculatePerformance(ours, scoreOf(replay), {
          ar: play.ar,
          od: play.od,
          clockRate: play.speed,
          mods: replay.mods,
        }).pp;
        const map = new rosu!.Beatmap(fixture(mapName));
        const theirs = new rosu!.Performance({
          mods: modsToString(replay.mods),
          lazer: false,
          n300: replay.n300,
          n100: replay.n100,
          n50: replay.n50,
          misses: replay.misses,
          combo: replay.maxCombo,
        }).calculate(map);
        map.free();
        const stars = theirs.difficulty.stars;
        assert.ok(
          Math.abs(ours.starRating - stars) <= stars * 0.005,
          `${name}: stars ${ours.starRating} vs ${stars}`,
        );
        assert.ok(
          Math.abs(pp - theirs.pp) <= Math.max(theirs.pp * 0.005, 0.05),
          `${name}: pp ${pp} vs ${theirs.pp}`,
        );
        compared++;
      }
      assert.ok(compared >= 50, `compared ${compared} replays`);
    },
  );
});

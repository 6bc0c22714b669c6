// The made osu! fixture set is what most render and osu tests stand on: its files must
// be what they say (a beatmap with every object kind, replays whose judgement is the one
// written in their header, a storyboard, a skin, a playable audio file and images).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  BeatmapLibrary,
  decodeReplay,
  extractOsk,
  judgeReplay,
  loadSkin,
  parseBeatmap,
  parseStoryboardFile,
} from '@platform/osu';
import {
  MADE_BEATMAP_MD5,
  MADE_BEATMAP_TITLE,
  MADE_OSU,
  madeOsuFixture,
  madeOsuFixturesDir,
  madeReplayJudgement,
  type KnownJudgement,
} from '../src/index.js';

const read = (name: string) => readFile(madeOsuFixture(name));

/** The counts a replay header and a judgement have in common. */
const counts = ({ n300, n100, n50, misses, maxCombo }: KnownJudgement): KnownJudgement => ({
  n300,
  n100,
  n50,
  misses,
  maxCombo,
});

test('the beatmap has circles, sliders of each curve, a spinner, timing points and assets', async () => {
  const beatmap = parseBeatmap((await read(MADE_OSU.beatmap)).toString('utf8'));
  assert.equal(beatmap.metadata.title, MADE_BEATMAP_TITLE);
  const kinds = beatmap.hitObjects.map((o) => o.kind);
  assert.equal(kinds.filter((k) => k === 'circle').length, 5);
  assert.equal(kinds.filter((k) => k === 'slider').length, 3);
  assert.equal(kinds.filter((k) => k === 'spinner').length, 1);
  const curves = beatmap.hitObjects.flatMap((o) => (o.slider ? [o.slider.curveType] : []));
  assert.deepEqual(curves, ['L', 'P', 'B']);
  assert.equal(beatmap.timingPoints.length, 3);
  assert.equal(beatmap.audioFilename, MADE_OSU.audio);
  assert.equal(beatmap.backgroundFilename, MADE_OSU.background);
  assert.ok(beatmap.events.storyboard.length > 0, 'storyboard in the [Events]');
  assert.equal(
    parseStoryboardFile((await read(MADE_OSU.storyboard)).toString('utf8')).length,
    1,
    'one sprite in the .osb',
  );
});

test('each replay names the beatmap and is judged exactly as its header says', async () => {
  const beatmap = parseBeatmap((await read(MADE_OSU.beatmap)).toString('utf8'));
  for (const name of [MADE_OSU.perfectReplay, MADE_OSU.missedReplay, MADE_OSU.lazerReplay]) {
    const replay = decodeReplay(await read(name));
    assert.equal(replay.beatmapMd5, MADE_BEATMAP_MD5);
    const known = madeReplayJudgement(name);
    assert.deepEqual(counts(replay), known, `${name} header`);
    assert.deepEqual(counts(judgeReplay(replay, beatmap)), known, `${name} judged`);
  }
  assert.equal(madeReplayJudgement(MADE_OSU.perfectReplay).n300, beatmap.hitObjects.length);
  const other = decodeReplay(await read(MADE_OSU.otherMapReplay));
  assert.notEqual(other.beatmapMd5, MADE_BEATMAP_MD5);
  assert.equal(other.playerName, 'made-other-map');
  const lazer = decodeReplay(await read(MADE_OSU.lazerReplay));
  assert.equal(lazer.version, 30000001);
  assert.deepEqual(lazer.scoreInfo?.statistics, { great: beatmap.hitObjects.length });
  assert.equal(madeReplayJudgement(MADE_OSU.missedReplay).misses, beatmap.hitObjects.length);
});

test('the other-mode replays carry their mode and are refused as osu! standard', async () => {
  for (const [name, mode] of [
    [MADE_OSU.taikoReplay, 1],
    [MADE_OSU.catchReplay, 2],
    [MADE_OSU.maniaReplay, 3],
  ] as const) {
    const bytes = await read(name);
    assert.equal(decodeReplay(bytes, { anyMode: true }).mode, mode);
    assert.throws(() => decodeReplay(bytes), { code: 'UNSUPPORTED_MODE' });
  }
});

test('the folder is a beatmap library that finds the beatmap by MD5', async () => {
  const library = new BeatmapLibrary([madeOsuFixturesDir()]);
  const found = await library.findByMd5(MADE_BEATMAP_MD5);
  assert.equal(found?.osuPath, madeOsuFixture(MADE_OSU.beatmap));
});

test('the skin extracts and loads with its name, colours and images', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'made-skin-'));
  try {
    const skinDir = await extractOsk(madeOsuFixture(MADE_OSU.skin), dir);
    const skin = await loadSkin(skinDir);
    assert.equal(skin.ini.name, MADE_OSU.skinName);
    assert.deepEqual(skin.ini.comboColours, [[0, 200, 0]]);
    assert.ok(skin.get('cursor'), 'cursor image');
    assert.ok(skin.get('hitcircle'), 'hit circle image');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('audio and images have the headers of their formats', async () => {
  const wav = await read(MADE_OSU.audio);
  assert.equal(wav.toString('latin1', 0, 4), 'RIFF');
  assert.equal(wav.toString('latin1', 8, 12), 'WAVE');
  assert.equal(wav.readUInt32LE(40), wav.length - 44, 'data chunk fills the file');
  const png = await read(MADE_OSU.background);
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]);
});

test('a second call gives the same folder, and an unknown name is an error', () => {
  assert.equal(madeOsuFixturesDir(), madeOsuFixturesDir());
  assert.throws(() => madeOsuFixture('nothing.osr'), /has no nothing\.osr/);
});

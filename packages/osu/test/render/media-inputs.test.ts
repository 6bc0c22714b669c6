/** The media a render plays besides its frames: where the music starts for the video's first frame. */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { madeOsuFixture } from '@platform/testing';
import { audioGraph } from '../../src/render/encode/audio-graph.js';
import { openMediaInputs } from '../../src/render/media-inputs.js';
import { prepareScene } from '../../src/render/prepare-scene.js';
import { resolveOptions } from '../../src/render/render-options.js';
import { decodeReplay } from '../../src/replay/decode-replay.js';
import { madeFixture } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'osu-media-inputs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The made beatmap written as file format `version`, with its audio beside it. */
function madeMapOfVersion(version: number): string {
  const folder = mkdtempSync(join(dir, `v${version}-`));
  const osu = readFileSync(madeOsuFixture('made.osu'), 'utf8');
  assert.match(osu, /^osu file format v14\n/);
  writeFileSync(
    join(folder, 'map.osu'),
    osu.replace(/^osu file format v14/, `osu file format v${version}`),
  );
  copyFileSync(madeOsuFixture('audio.wav'), join(folder, 'audio.wav'));
  return join(folder, 'map.osu');
}

/** Where in the audio file (seconds) the music of a video starting at map time `startTime` begins. */
async function musicStart(version: number, startTime: number): Promise<number> {
  const { draw } = resolveOptions({} as never);
  const prepared = await prepareScene({
    replay: decodeReplay(madeFixture('perfect.osr')),
    beatmapPath: madeMapOfVersion(version),
    skinDir: undefined,
    width: 64,
    height: 48,
    fps: 30,
    storyboard: false,
    draw,
    log: () => undefined,
  });
  assert.equal(prepared.beatmap.formatVersion, version);
  const media = await openMediaInputs({
    prepared,
    ffmpeg: 'ffmpeg-not-needed',
    ffprobe: 'ffprobe-not-needed',
    skinDir: undefined,
    mods: 0,
    startTime,
    frames: 30,
    width: 64,
    height: 48,
    fps: 30,
    video: false,
    hitsoundVolume: 0,
    hitSoundPath: join(dir, 'unused.pcm'),
    log: () => undefined,
  });
  await media.close();
  assert.ok(media.music, 'the made map has music');
  return media.music.startSeconds;
}

describe('openMediaInputs: the music of old beatmaps', () => {
  test('a v4 (and v3) map plays its music 24 ms ahead of the map time, as the game does', async () => {
    const v14 = await musicStart(14, 500);
    assert.equal(v14, 0.5);
    assert.equal(await musicStart(5, 500), 0.5);
    const v4 = await musicStart(4, 500);
    assert.equal(v4, 0.524);
    assert.equal(await musicStart(3, 500), 0.524);
    // what ffmpeg gets: the seek into the file
    const inputs = audioGraph(
      { music: { path: 'audio.wav', startSeconds: v4, speed: 1 }, hitSounds: undefined },
      1,
    ).inputs;
    assert.deepEqual(inputs.slice(0, 2), ['-ss', '0.524']);
  });

  test("a video that starts before the song delays a v4 map's music 24 ms less", async () => {
    // map time -1000: the song starts 1 s into the video, 976 ms for a v4 map
    assert.equal(await musicStart(14, -1000), -1);
    assert.equal(await musicStart(4, -1000), -0.976);
  });
});

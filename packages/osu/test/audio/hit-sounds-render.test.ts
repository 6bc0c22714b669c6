import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  decodeReplay,
  defaultRenderOptions,
  judgeReplay,
  parseBeatmap,
  preparePlayable,
  renderReplay,
  resolveFfmpeg,
  type RenderOptions,
} from '../../src/index.js';
import { fixture, skipWithoutFfmpeg, skipWithoutFixtures } from '../helpers.js';

const { ffmpeg } = resolveFfmpeg();
const skip = skipWithoutFixtures() || skipWithoutFfmpeg();
const RATE = 44100;

const base: RenderOptions = {
  ...defaultRenderOptions,
  motionBlur: false,
  storyboard: false,
  width: 192,
  height: 108,
  fps: 30,
};

/** A WAV file of a sine (ffmpeg's at 1/8 of full scale) times `gain`. */
function sine(frequency: number, seconds: number, gain: number, path: string): void {
  const src = `sine=frequency=${frequency}:duration=${seconds}`;
  execFileSync(ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', src, '-af', `volume=${gain}`, path]);
}

/** The video's audio track, decoded to mono float at RATE. */
function audioOf(video: string): Float32Array {
  const raw = execFileSync(
    ffmpeg,
    [
      '-v',
      'error',
      '-i',
      video,
      '-map',
      '0:a',
      '-ac',
      '1',
      '-ar',
      String(RATE),
      '-f',
      'f32le',
      'pipe:1',
    ],
    { maxBuffer: 64 << 20 },
  );
  return new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
}

function rms(pcm: Float32Array, fromS: number, toS: number): number {
  const a = Math.max(0, Math.round(fromS * RATE));
  const b = Math.min(pcm.length, Math.round(toS * RATE));
  let sum = 0;
  for (let i = a; i < b; i++) sum += pcm[i]! ** 2;
  return Math.sqrt(sum / Math.max(1, b - a));
}

describe('hitsounds in the rendered audio', { skip }, () => {
  let dir = '';
  let mapPath = '';
  let hitTime = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'osu-hitsound-test-'));
    const mapDir = join(dir, 'map');
    mkdirSync(mapDir);
    const text = fixture('dearbrave1.osu')
      .toString('utf8')
      .replace('AudioFilename: Dear brave.mp3', 'AudioFilename: audio.wav');
    mapPath = join(mapDir, 'map.osu');
    writeFileSync(mapPath, text);
    // quiet music: a low hum
    sine(110, 20, 0.05, join(mapDir, 'audio.wav'));
    const replay = decodeReplay(fixture('dearbrave3.osr'));
    const beatmap = parseBeatmap(text);
    const j = judgeReplay(replay, beatmap);
    // the play's first sound: the slider's first tick, caught (the head was missed)
    const first = j.events[0]!;
    const slider = preparePlayable(beatmap, replay.mods).objects[first.objectIndex]!;
    assert.equal(first.kind, 'tick');
    assert.ok(slider.events.some((e) => e.kind === 'tick' && e.time === first.time));
    hitTime = first.time;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const render = async (
    name: string,
    options: Partial<RenderOptions>,
  ): Promise<{ pcm: Float32Array; at: number; lines: string[] }> => {
    const lines: string[] = [];
    const r = await renderReplay({
      replay: fixture('dearbrave3.osr'),
      beatmapPath: mapPath,
      outputVideoPath: join(dir, `${name}.mp4`),
      outputThumbnailPath: join(dir, `${name}.jpg`),
      options: { ...base, ...options },
      log: (l) => lines.push(l),
    });
    return {
      pcm: audioOf(join(dir, `${name}.mp4`)),
      at: (hitTime - r.startTimeMs) / r.speed / 1000,
      lines,
    };
  };

  test('the default sample sounds at the hit time, over the music', async () => {
    const { pcm, at, lines } = await render('default', {});
    assert.ok(
      lines.some((l) => /^hitsounds: [1-9]\d* samples mixed/.test(l)),
      lines.join('\n'),
    );
    const before = rms(pcm, at - 0.4, at - 0.1);
    const during = rms(pcm, at, at + 0.06);
    // the hum: 1/8 of full scale at 0.05, RMS ~0.0044
    assert.ok(before > 0.003, `the music is there (${before})`);
    assert.ok(during > before * 3, `hit ${during} against music ${before}`);
  });

  test('hitsound_volume 0 leaves the music alone; music_volume 0 leaves the hitsounds alone', async () => {
    const quiet = await render('no-hits', { hitsoundVolume: 0 });
    const flat =
      rms(quiet.pcm, quiet.at, quiet.at + 0.06) / rms(quiet.pcm, quiet.at - 0.4, quiet.at - 0.1);
    assert.ok(flat < 1.5, `no transient at the hit (${flat})`);
    const hitsOnly = await render('no-music', { musicVolume: 0 });
    assert.ok(
      rms(hitsOnly.pcm, hitsOnly.at - 0.4, hitsOnly.at - 0.1) < 0.001,
      'silence before the hit',
    );
    assert.ok(rms(hitsOnly.pcm, hitsOnly.at, hitsOnly.at + 0.06) > 0.01, 'the hit');
  });

  test("the beatmap's own sample (timing point index 1) wins over the default", async () => {
    // the map's timing points use the soft set with custom index 1: soft-slidertick.wav in its folder
    sine(3000, 0.4, 1, join(dir, 'map', 'soft-slidertick.wav'));
    const { pcm, at } = await render('custom', { musicVolume: 0 });
    // the synthesised tick is over in 40 ms; the map's sample (a sine at 1/8 of full scale,
    // played at the timing point's volume 50: RMS ~0.044) lasts 400 ms
    assert.ok(
      rms(pcm, at + 0.1, at + 0.2) > 0.02,
      `custom sample still sounding (${rms(pcm, at + 0.1, at + 0.2)})`,
    );
  });
});

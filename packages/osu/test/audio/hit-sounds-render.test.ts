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
import { madeFixture, skipWithoutFfmpeg } from '../helpers.js';

const { ffmpeg } = resolveFfmpeg();
const skip = skipWithoutFfmpeg();
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
    // The made beatmap, its first timing point on the soft set with custom index 1, so a
    // soft-hitnormal.wav in its folder is the map's own sample for the first circle.
    const text = madeFixture('made.osu')
      .toString('utf8')
      .replace('600,300,4,1,0,60,1,0', '600,300,4,2,1,60,1,0');
    assert.ok(text.includes('600,300,4,2,1,60,1,0'), 'the timing point was rewritten');
    mapPath = join(mapDir, 'map.osu');
    writeFileSync(mapPath, text);
    // quiet music: a low hum
    sine(110, 20, 0.05, join(mapDir, 'audio.wav'));
    const replay = decodeReplay(madeFixture('perfect.osr'));
    const beatmap = parseBeatmap(text);
    const j = judgeReplay(replay, beatmap);
    // the play's first sound: the first circle, hit
    const first = j.events[0]!;
    const circle = preparePlayable(beatmap, replay.mods).objects[first.objectIndex]!;
    assert.equal(first.objectIndex, 0);
    assert.equal(circle.time, 600);
    hitTime = first.time;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const render = async (
    name: string,
    options: Partial<RenderOptions>,
  ): Promise<{ pcm: Float32Array; at: number; lines: string[] }> => {
    const lines: string[] = [];
    const r = await renderReplay({
      replay: madeFixture('perfect.osr'),
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
    // the same play without the map's sample first: what the default leaves in the window
    const plain = await render('plain', { musicVolume: 0 });
    // the map's first timing point uses the soft set with custom index 1: soft-hitnormal.wav in its folder
    sine(3000, 0.4, 1, join(dir, 'map', 'soft-hitnormal.wav'));
    const { pcm, at } = await render('custom', { musicVolume: 0 });
    // The default sample fades fast; the map's (a sine at 1/8 of full scale, at the timing
    // point's volume 60) lasts 400 ms. The window ends before the next circle (80 ms later),
    // so only the first circle's sample sounds in it.
    const tail = (p: Float32Array, t: number) => rms(p, t + 0.045, t + 0.075);
    const custom = tail(pcm, at);
    const fallback = tail(plain.pcm, plain.at);
    assert.ok(custom > fallback * 2, `custom sample ${custom} against the default's ${fallback}`);
  });
});

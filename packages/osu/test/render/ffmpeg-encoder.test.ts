import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { resolveFfmpeg } from '../../src/index.js';
import { FfmpegEncoder } from '../../src/render/ffmpeg-encoder.js';
import { skipWithoutFfmpeg } from '../helpers.js';

const { ffmpeg } = resolveFfmpeg();
const skip = skipWithoutFfmpeg();
const out = mkdtempSync(join(tmpdir(), 'osu-encoder-test-'));
after(() => rmSync(out, { recursive: true, force: true }));

const W = 64;
const H = 32;
const FRAMES = 10;
/** Frame i is plain grey at this level: neighbours 20 levels apart. */
const grey = (i: number): number => 20 + 20 * i;

/** Each frame of a video or image decoded to grey levels: the mean level of each. */
function meanLevels(file: string): number[] {
  const args = ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'];
  const grey8 = execFileSync(ffmpeg, args);
  const levels: number[] = [];
  for (let f = 0; f * W * H < grey8.length; f++) {
    const px = grey8.subarray(f * W * H, (f + 1) * W * H);
    levels.push(px.reduce((a, b) => a + b, 0) / px.length);
  }
  return levels;
}

/** Encodes 10 grey frames (frame i at grey(i)); ffmpeg's command line as logged. */
async function encode(
  name: string,
  o: { motionBlur: boolean; convert?: 'node' | 'ffmpeg'; thumbnailFrame?: number },
): Promise<string> {
  const lines: string[] = [];
  const enc = new FfmpegEncoder({
    ffmpeg,
    width: W,
    height: H,
    fps: 30,
    output: join(out, `${name}.mp4`),
    durationSeconds: FRAMES / 30,
    audio: undefined,
    motionBlur: o.motionBlur,
    preset: 'ultrafast',
    crf: 0,
    convert: o.convert,
    ...(o.thumbnailFrame === undefined
      ? {}
      : { thumbnail: { path: join(out, `${name}.jpg`), frame: o.thumbnailFrame } }),
    log: (l) => lines.push(l),
  });
  for (let i = 0; i < FRAMES; i++) await enc.write(new Uint8Array(W * H * 4).fill(grey(i)));
  await enc.finish();
  return lines.find((l) => l.startsWith('ffmpeg ')) ?? '';
}

/** Encodes 10 grey frames asking for a thumbnail of `frame`; the JPEG's mean level. */
async function thumbnailLevel(name: string, frame: number, motionBlur: boolean): Promise<number> {
  await encode(name, { motionBlur, thumbnailFrame: frame });
  const [level] = meanLevels(join(out, `${name}.jpg`));
  return level!;
}

describe('FfmpegEncoder thumbnail', { skip }, () => {
  test('writes the JPEG of the frame asked for, from the same ffmpeg', async () => {
    const level = await thumbnailLevel('plain', 6, false);
    assert.ok(Math.abs(level - grey(6)) < 4, `mean ${level}, frame 6 is ${grey(6)}`);
  });

  test('the thumbnail is taken after the motion blur (1-2-1 of frames 4, 5, 6)', async () => {
    const level = await thumbnailLevel('blur', 6, true);
    assert.ok(Math.abs(level - grey(5)) < 4, `mean ${level}, the blend is ${grey(5)}`);
  });
});

describe('FfmpegEncoder motion blur', { skip }, () => {
  test('converting here, the converter blends and ffmpeg only encodes (no tblend)', async () => {
    const command = await encode('node', { motionBlur: true, convert: 'node' });
    assert.ok(command.length > 0, 'ffmpeg command logged');
    assert.ok(!command.includes('tblend'), `ffmpeg still blends: ${command}`);
    const levels = meanLevels(join(out, 'node.mp4'));
    assert.equal(levels.length, FRAMES);
    // the 1-2-1 blend of frames i-2, i-1, i (the first frame standing in before it)
    for (let i = 0; i < FRAMES; i++) {
      const want = (grey(Math.max(0, i - 2)) + 2 * grey(Math.max(0, i - 1)) + grey(i)) / 4;
      assert.ok(Math.abs(levels[i]! - want) < 3, `frame ${i}: mean ${levels[i]}, blend ${want}`);
    }
  });

  test('the same frames as ffmpeg blending (convert: ffmpeg keeps its tblend)', async () => {
    await encode('here', { motionBlur: true, convert: 'node' });
    const command = await encode('there', { motionBlur: true, convert: 'ffmpeg' });
    assert.ok(command.includes('tblend'), command);
    const here = meanLevels(join(out, 'here.mp4'));
    const there = meanLevels(join(out, 'there.mp4'));
    assert.equal(here.length, there.length);
    here.forEach((l, i) =>
      assert.ok(Math.abs(l - there[i]!) < 2, `frame ${i}: ${l} against ${there[i]}`),
    );
  });
});

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
const out = mkdtempSync(join(tmpdir(), 'osu-thumb-test-'));
after(() => rmSync(out, { recursive: true, force: true }));

const W = 64;
const H = 32;
/** Frame i is plain grey at this level: neighbours 20 levels apart. */
const grey = (i: number): number => 20 + 20 * i;

/** Encodes 10 grey frames asking for a thumbnail of `frame`; the JPEG's mean level. */
async function thumbnailLevel(name: string, frame: number, motionBlur: boolean): Promise<number> {
  const jpg = join(out, `${name}.jpg`);
  const enc = new FfmpegEncoder({
    ffmpeg,
    width: W,
    height: H,
    fps: 30,
    output: join(out, `${name}.mp4`),
    durationSeconds: 10 / 30,
    audio: undefined,
    motionBlur,
    preset: 'ultrafast',
    crf: 20,
    thumbnail: { path: jpg, frame },
    log: () => undefined,
  });
  for (let i = 0; i < 10; i++) {
    const rgba = new Uint8Array(W * H * 4).fill(grey(i));
    await enc.write(rgba);
  }
  await enc.finish();
  const pixels = execFileSync(ffmpeg, [
    '-v',
    'error',
    '-i',
    jpg,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    'pipe:1',
  ]);
  assert.equal(pixels.length, W * H);
  return pixels.reduce((a, b) => a + b, 0) / pixels.length;
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

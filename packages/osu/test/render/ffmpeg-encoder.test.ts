import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { resolveFfmpeg } from '../../src/index.js';
import { i420Size } from '../../src/render/encode/rgba-to-i420.js';
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

/** Bytes ffmpeg has read so far (all its reads), from /proc; undefined without /proc. */
function bytesRead(pid: number): number | undefined {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

describe('FfmpegEncoder frame transport', { skip }, () => {
  test('a frame reaches ffmpeg while this thread is busy (no event loop turn)', async (t) => {
    // 1080p: an I420 frame of 3.1 MB, far more than a pipe or socket buffers; through
    // stdin it could cross only when the event loop ran (README, Benchmarks)
    const [w, h] = [1920, 1080];
    const enc = new FfmpegEncoder({
      ffmpeg,
      width: w,
      height: h,
      fps: 30,
      output: join(out, 'busy.mp4'),
      durationSeconds: 3 / 30,
      audio: undefined,
      motionBlur: false,
      preset: 'ultrafast',
      crf: 20,
      log: () => undefined,
    });
    const pid = enc.pid!;
    if (bytesRead(pid) === undefined) {
      t.skip('no /proc/<pid>/io on this system');
      await enc.write(new Uint8Array(w * h * 4));
      await enc.finish();
      return;
    }
    const frame = (): Uint8Array => new Uint8Array(w * h * 4).fill(128);
    // the third write waits for the first frame (two in flight); in the event loop turn
    // that ends that wait, the second frame is handed on
    await enc.write(frame());
    await enc.write(frame());
    await enc.write(frame());
    const atSecond = bytesRead(pid)!;
    // then this thread stays busy (no await) until ffmpeg has read both, or 20 s
    const tick = new Int32Array(new SharedArrayBuffer(4));
    const deadline = Date.now() + 20_000;
    const want = 2 * i420Size(w, h);
    let read = atSecond;
    while ((read = bytesRead(pid)!) < want && Date.now() < deadline) Atomics.wait(tick, 0, 0, 5);
    // a failed check leaves no ffmpeg behind
    if (read < want) enc.kill();
    assert.ok(
      read >= want,
      `ffmpeg read ${read} bytes of the first two frames' ${want} while the event loop was blocked (${atSecond} when it began)`,
    );
    await enc.finish();
  });
});

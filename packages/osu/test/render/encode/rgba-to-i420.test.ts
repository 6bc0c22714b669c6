import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { resolveFfmpeg } from '../../../src/index.js';
import {
  blend121,
  I420Converter,
  i420Size,
  rgbaToI420,
} from '../../../src/render/encode/rgba-to-i420.js';
import { skipWithoutFfmpeg } from '../../helpers.js';

const W = 64;
const H = 32;

/** Raw frames (`pixFmt`, w x h, 60 fps) through an ffmpeg filter chain, out as raw yuv420p. */
function ffmpegRaw(input: Uint8Array, pixFmt: string, w: number, h: number, vf: string): Buffer {
  const args = ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-s', `${w}x${h}`];
  args.push('-r', '60', '-i', 'pipe:0', '-vf', vf, '-f', 'rawvideo', '-pix_fmt', 'yuv420p');
  return execFileSync(resolveFfmpeg().ffmpeg, [...args, 'pipe:1'], {
    input,
    maxBuffer: 64 << 20,
  });
}

/** Smooth colour ramps (chroma filters of different widths agree on smooth images). */
function testImage(): Uint8Array {
  const rgba = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      rgba[i] = (x * 4) & 255;
      rgba[i + 1] = (y * 4 + x * 2) & 255;
      rgba[i + 2] = (x * 2 + y * 3) & 255;
      rgba[i + 3] = 255;
    }
  return rgba;
}

describe('rgbaToI420', () => {
  test('known BT.709 limited-range values: black, white, pure primaries', () => {
    const rgba = new Uint8Array(2 * 2 * 4);
    const cases: [number[], number, number, number][] = [
      [[0, 0, 0], 16, 128, 128],
      [[255, 255, 255], 235, 128, 128],
      [[255, 0, 0], 63, 102, 240],
      [[0, 255, 0], 173, 42, 26],
      [[0, 0, 255], 32, 240, 118],
    ];
    for (const [[r, g, b], y, u, v] of cases) {
      for (let i = 0; i < 4; i++) rgba.set([r!, g!, b!, 255], i * 4);
      const out = rgbaToI420(rgba, 2, 2, new Uint8Array(i420Size(2, 2)));
      assert.deepEqual([...out], [y, y, y, y, u, v], `rgb(${r},${g},${b})`);
    }
  });

  test('refuses odd sizes and short buffers', () => {
    assert.throws(() => rgbaToI420(new Uint8Array(12), 3, 1, new Uint8Array(10)), RangeError);
    assert.throws(() => rgbaToI420(new Uint8Array(4), 2, 2, new Uint8Array(6)), RangeError);
    assert.throws(() => rgbaToI420(new Uint8Array(16), 2, 2, new Uint8Array(5)), RangeError);
  });

  test(
    'matches ffmpeg (swscale, bt709, accurate rounding) within 2 levels',
    { skip: skipWithoutFfmpeg() },
    () => {
      const rgba = testImage();
      const ours = rgbaToI420(rgba, W, H, new Uint8Array(i420Size(W, H)));
      const theirs = ffmpegRaw(
        rgba,
        'rgba',
        W,
        H,
        'scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd+full_chroma_int',
      );
      assert.equal(theirs.length, ours.length);
      let worstY = 0;
      let worstC = 0;
      for (let i = 0; i < ours.length; i++) {
        const d = Math.abs(ours[i]! - theirs[i]!);
        if (i < W * H) worstY = Math.max(worstY, d);
        else worstC = Math.max(worstC, d);
      }
      assert.ok(worstY <= 1, `luma differs by up to ${worstY}`);
      assert.ok(worstC <= 2, `chroma differs by up to ${worstC}`);
    },
  );
});

/** Every byte value in every channel, in no pattern (alpha opaque). */
function noise(width: number, height: number, seed: number): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  let s = seed;
  for (let i = 0; i < rgba.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    rgba[i] = i % 4 === 3 ? 255 : s >>> 24;
  }
  return rgba;
}

describe('I420Converter (WebAssembly SIMD)', () => {
  test('agrees with the plain converter: luma exactly, chroma within 1 (15 instead of 16 fraction bits)', () => {
    // 40 wide: SIMD only; 46: not a multiple of 8, the plain loop; 38 rows: a partial row chunk
    for (const [w, h] of [
      [40, 38],
      [46, 6],
      [1920, 36],
    ] as const) {
      const rgba = noise(w, h, w * 31 + h);
      const expected = rgbaToI420(rgba, w, h, new Uint8Array(i420Size(w, h)));
      const got = new I420Converter(w, h, 2).convert(rgba, 0);
      assert.equal(got.length, expected.length);
      let worstC = 0;
      for (let i = 0; i < got.length; i++) {
        if (i < w * h) assert.equal(got[i], expected[i], `${w}x${h}: luma byte ${i}`);
        else worstC = Math.max(worstC, Math.abs(got[i]! - expected[i]!));
      }
      assert.ok(worstC <= 1, `${w}x${h}: chroma differs by ${worstC}`);
    }
  });

  test('keeps `slots` frames: a slot is only overwritten when its turn comes again', () => {
    const conv = new I420Converter(16, 4, 2);
    const a = noise(16, 4, 1);
    const b = noise(16, 4, 2);
    const first = Buffer.from(conv.convert(a, 0));
    const slot0 = conv.convert(a, 0);
    const slot1 = conv.convert(b, 1);
    assert.ok(Buffer.from(slot0).equals(first), 'slot 0 changed when slot 1 was written');
    assert.ok(!Buffer.from(slot1).equals(first));
    assert.ok(Buffer.from(conv.convert(b, 2)).equals(Buffer.from(slot1)), 'slot 2 is slot 0 again');
    assert.ok(!Buffer.from(slot0).equals(first), 'slot 0 was reused');
  });

  test('refuses odd sizes and short buffers', () => {
    assert.throws(() => new I420Converter(15, 4, 1), RangeError);
    assert.throws(
      () => new I420Converter(16, 4, 1).convert(new Uint8Array(16 * 4 * 4 - 1), 0),
      RangeError,
    );
  });

  const wabtMissing = ((): string | false => {
    try {
      createRequire(import.meta.url).resolve('wabt');
      return false;
    } catch {
      process.stderr.write('skip: wabt (dev dependency) is not installed: run npm install\n');
      return 'wabt is not installed';
    }
  })();

  test('the embedded binary is the compile of rgba-to-i420.wat', { skip: wabtMissing }, () => {
    const script = fileURLToPath(new URL('../../../scripts/build-wasm.mjs', import.meta.url));
    execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' });
  });
});

/** Frames through ffmpeg's motion blur as the encoder ran it before (tpad + two tblends), as raw I420. */
function ffmpegBlur(frames: Uint8Array[], w: number, h: number): Buffer {
  const blur = 'tpad=start=2:start_mode=clone,tblend=all_mode=average,tblend=all_mode=average';
  return ffmpegRaw(Buffer.concat(frames), 'yuv420p', w, h, `${blur},setpts=N/(FRAME_RATE*TB)`);
}

describe('motion blur in the converter', () => {
  test('blend121 is the truncating 1-2-1 mean', () => {
    const out = blend121(
      Uint8Array.of(0, 255, 1, 10),
      Uint8Array.of(0, 255, 2, 20),
      Uint8Array.of(1, 254, 4, 31),
      new Uint8Array(4),
    );
    // (0+0)>>1=0, (0+1)>>1=0 -> 0; 255, 254 -> 254; 1, 3 -> 2; 15, 25 -> 20
    assert.deepEqual([...out], [0, 254, 2, 20]);
  });

  test(
    "blended frames are byte for byte what ffmpeg's tpad + two tblends made of the unblended ones",
    { skip: skipWithoutFfmpeg() },
    () => {
      // 1920 wide: WebAssembly, 36 rows (a partial chunk of rows); 46: the plain loop
      for (const [w, h] of [
        [1920, 36],
        [46, 6],
      ] as const) {
        const frames = [0, 1, 2, 3, 4].map((i) => noise(w, h, 7 * i + w));
        const plain = new I420Converter(w, h, 2);
        const unblended = frames.map((f, i) => Buffer.from(plain.convert(f, i)));
        const expected = ffmpegBlur(unblended, w, h);
        const size = i420Size(w, h);
        assert.equal(expected.length, frames.length * size);
        // a ring of 2 output slots: each frame is checked before its slot is reused
        const blur = new I420Converter(w, h, 2, true);
        frames.forEach((f, i) => {
          const got = Buffer.from(blur.convert(f, i));
          const want = expected.subarray(i * size, (i + 1) * size);
          assert.ok(got.equals(want), `${w}x${h} frame ${i}: differs from ffmpeg's blend`);
        });
      }
    },
  );
});

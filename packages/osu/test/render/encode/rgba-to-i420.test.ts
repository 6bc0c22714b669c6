import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { resolveFfmpeg } from '../../../src/index.js';
import { I420Converter, i420Size, rgbaToI420 } from '../../../src/render/encode/rgba-to-i420.js';
import { skipWithoutFfmpeg } from '../../helpers.js';

const W = 64;
const H = 32;

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
      const theirs = execFileSync(
        resolveFfmpeg().ffmpeg,
        [
          '-v',
          'error',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'rgba',
          '-s',
          `${W}x${H}`,
          '-i',
          'pipe:0',
          '-vf',
          'scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd+full_chroma_int',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'yuv420p',
          'pipe:1',
        ],
        { input: rgba },
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

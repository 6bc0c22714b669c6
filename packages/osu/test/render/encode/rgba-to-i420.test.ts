import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { resolveFfmpeg } from '../../../src/index.js';
import { i420Size, rgbaToI420 } from '../../../src/render/encode/rgba-to-i420.js';
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

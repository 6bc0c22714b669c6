/** Read-back frames are freed young, so V8's external memory does not pile up between mark-compacts. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { FrameRelease } from '../../src/render/release-frames.js';

describe('FrameRelease', () => {
  test('frames handed on are freed before the next ones pile up', () => {
    const ctx = createCanvas(1920, 1080).getContext('2d', { alpha: false });
    const frameBytes = 1920 * 1080 * 4;
    const release = new FrameRelease();
    release.open();
    const base = process.memoryUsage().external;
    let peak = 0;
    try {
      for (let i = 0; i < 40; i++) {
        ctx.fillStyle = i % 2 ? '#204060' : '#604020';
        ctx.fillRect(0, 0, 1920, 1080);
        let frame: Uint8Array | undefined = ctx.canvas.data();
        const bytes = frame.byteLength;
        frame = undefined;
        release.released(bytes);
        peak = Math.max(peak, process.memoryUsage().external - base);
      }
    } finally {
      release.close();
    }
    // left to V8, 40 frames (330 MB) pile up to its 64 MB external step (8 frames) and more
    assert.ok(
      peak < 5 * frameBytes,
      `external memory peaked ${(peak / 1e6).toFixed(0)} MB above the start`,
    );
  });

  test('close without open, and twice, leaves the process as it was', () => {
    const release = new FrameRelease();
    release.close();
    release.open();
    release.close();
    release.close();
  });
});

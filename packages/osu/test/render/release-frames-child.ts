/**
 * Child of release-frames.test.ts, in a process started with the flags the test chose;
 * records every V8 flag set while it runs and prints one JSON line.
 *
 *   loop    40 1080p readbacks handed to a `FrameRelease`: whether frames were
 *           collected, external memory's peak above the start
 *   render  a short render of the made fixture (`renderReplay`, ffmpeg included) into
 *           the folder given: its frame count and log
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { madeOsuFixture } from '@platform/testing';
import { recordV8Flags } from './record-v8-flags.js';

const flags = recordV8Flags();
const [mode, out] = process.argv.slice(2);

if (mode === 'loop') {
  const { FrameRelease } = await import('../../src/render/release-frames.js');
  const ctx = createCanvas(1920, 1080).getContext('2d', { alpha: false });
  const release = new FrameRelease();
  const base = process.memoryUsage().external;
  let peak = 0;
  for (let i = 0; i < 40; i++) {
    ctx.fillStyle = i % 2 ? '#204060' : '#604020';
    ctx.fillRect(0, 0, 1920, 1080);
    let frame: Uint8Array | undefined = ctx.canvas.data();
    const bytes = frame.byteLength;
    frame = undefined;
    release.released(bytes);
    peak = Math.max(peak, process.memoryUsage().external - base);
  }
  print({ collecting: release.collecting, peak });
} else if (mode === 'render' && out) {
  const { renderReplay, defaultRenderOptions } = await import('../../src/index.js');
  copyFileSync(madeOsuFixture('made.osu'), join(out, 'made.osu'));
  const log: string[] = [];
  const r = await renderReplay({
    replay: readFileSync(madeOsuFixture('perfect.osr')),
    beatmapPath: join(out, 'made.osu'),
    outputVideoPath: join(out, 'a.mp4'),
    outputThumbnailPath: join(out, 'a.jpg'),
    options: {
      ...defaultRenderOptions,
      width: 384,
      height: 216,
      fps: 30,
      motionBlur: false,
      resultsScreen: false,
    },
    log: (line) => log.push(line),
  });
  print({ frames: r.frames, log });
} else {
  throw new Error(`usage: release-frames-child.ts loop | render <folder>`);
}

function print(result: object): void {
  process.stdout.write(`${JSON.stringify({ ...result, flags: flags.calls })}\n`);
}

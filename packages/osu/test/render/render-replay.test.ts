import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  CursorTrack,
  decodeReplay,
  playfieldTransform,
  RenderAbortedError,
  renderReplay,
  resolveFfmpeg,
  type RenderOptions,
} from '../../src/index.js';
import { madeOsuFixture } from '@platform/testing';
import { madeFixture, skipWithoutFfmpeg, videoFrameAt } from '../helpers.js';

const { ffprobe } = resolveFfmpeg();
const skip = skipWithoutFfmpeg();
const out = mkdtempSync(join(tmpdir(), 'osu-render-test-'));
after(() => rmSync(out, { recursive: true, force: true }));

const W = 384;
const H = 216;
const options: RenderOptions = {
  resolution: '1080p',
  bgDim: 1,
  motionBlur: false,
  storyboard: true,
  video: false,
  snakingIn: true,
  snakingOut: true,
  hitErrorMeter: true,
  keyOverlay: true,
  width: W,
  height: H,
  fps: 30,
  // frames are sampled across the clip: no ranking panel at its end
  resultsScreen: false,
};

describe('renderReplay', { skip }, () => {
  test('renders a short replay: duration, size, codec, thumbnail, progress, cursor position', async () => {
    const video = join(out, 'a.mp4');
    const thumb = join(out, 'a.jpg');
    const progress: number[] = [];
    const lines: string[] = [];
    const replayBytes = madeFixture('perfect.osr');
    // the beatmap alone in its folder: no audio beside it
    copyFileSync(madeOsuFixture('made.osu'), join(out, 'made.osu'));
    const r = await renderReplay({
      replay: replayBytes,
      beatmapPath: join(out, 'made.osu'),
      outputVideoPath: video,
      outputThumbnailPath: thumb,
      options,
      onProgress: (p) => progress.push(p),
      log: (l) => lines.push(l),
    });
    assert.equal(r.width, W);
    assert.equal(r.height, H);
    assert.ok(r.frames > 30);
    assert.deepEqual(
      progress,
      [...progress].sort((a, b) => a - b),
    );
    assert.equal(progress.at(-1), 100);
    assert.ok(lines.some((l) => l.startsWith('done:')));
    assert.ok(lines.some((l) => l.includes('no audio file')));
    // the node thread's per-stage profile, every stage of a frame present
    const stages = lines.find((l) => l.startsWith('stages'));
    assert.match(stages ?? '', new RegExp(`${r.frames} frames\\): draw [0-9.]+, readback [0-9.]+`));
    assert.match(stages!, /convert [0-9.]+, pipe write [0-9.]+/);

    const probe = JSON.parse(
      execFileSync(
        ffprobe,
        [
          '-v',
          'error',
          '-show_entries',
          'stream=codec_name,codec_type,width,height,pix_fmt',
          '-show_entries',
          'format=duration',
          '-of',
          'json',
          video,
        ],
        { encoding: 'utf8' },
      ),
    ) as {
      streams: {
        codec_name: string;
        codec_type: string;
        width?: number;
        height?: number;
        pix_fmt?: string;
      }[];
      format: { duration: string };
    };
    const v = probe.streams.find((s) => s.codec_type === 'video')!;
    assert.equal(v.codec_name, 'h264');
    assert.equal(v.pix_fmt, 'yuv420p');
    assert.equal(v.width, W);
    assert.equal(v.height, H);
    assert.ok(
      Math.abs(Number(probe.format.duration) - r.durationSeconds) < 0.2,
      `duration ${probe.format.duration} vs ${r.durationSeconds}`,
    );
    const jpg = readFileSync(thumb);
    assert.equal(jpg[0], 0xff);
    assert.equal(jpg[1], 0xd8);

    // the cursor is drawn where the replay puts it
    const track = new CursorTrack(decodeReplay(replayBytes).frames);
    const tr = playfieldTransform(W, H);
    let checked = 0;
    for (const frameIndex of [
      Math.floor(r.frames * 0.3),
      Math.floor(r.frames * 0.5),
      Math.floor(r.frames * 0.7),
    ]) {
      const t = r.startTimeMs + (frameIndex * 1000 * r.speed) / r.fps;
      const p = track.positionAt(t, { x: 0, y: 0 });
      const x = Math.round(tr.x + p.x * tr.scale);
      const y = Math.round(tr.y + p.y * tr.scale);
      if (x < 3 || y < 3 || x >= W - 3 || y >= H - 3) continue;
      const at = videoFrameAt(video, frameIndex, W);
      const yellow = ([r0, g, b]: [number, number, number]): boolean =>
        r0 > 170 && g > 120 && b < 110;
      let found = false;
      for (let dy = -1; dy <= 1 && !found; dy++)
        for (let dx = -1; dx <= 1 && !found; dx++) found = yellow(at(x + dx, y + dy));
      assert.ok(
        found,
        `cursor colour at (${x},${y}) in frame ${frameIndex}: ${at(x, y).join(',')}`,
      );
      // and not at the mirrored point
      assert.ok(
        !yellow(at(W - 1 - x, H - 1 - y)) || Math.abs(W - 1 - 2 * x) < 8,
        'yellow everywhere?',
      );
      checked++;
    }
    assert.ok(checked >= 2);
  });

  test('worker threads draw the same video', async () => {
    const video = join(out, 'w.mp4');
    const r = await renderReplay({
      replay: madeFixture('perfect.osr'),
      beatmapPath: madeOsuFixture('made.osu'),
      outputVideoPath: video,
      outputThumbnailPath: join(out, 'w.jpg'),
      options: { ...options, workers: 2, fps: 20 },
    });
    const frames = execFileSync(
      ffprobe,
      [
        '-v',
        'error',
        '-count_frames',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=nb_read_frames',
        '-of',
        'csv=p=0',
        video,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(Number(frames.trim()), r.frames);
  });

  test('motion blur keeps every frame and the timing', async () => {
    const video = join(out, 'm.mp4');
    const r = await renderReplay({
      replay: madeFixture('perfect.osr'),
      beatmapPath: madeOsuFixture('made.osu'),
      outputVideoPath: video,
      outputThumbnailPath: join(out, 'm.jpg'),
      options: { ...options, motionBlur: true, fps: 20, maxSeconds: 3 },
    });
    // ffprobe prints start_time before nb_read_frames
    const [start, nb] = execFileSync(
      ffprobe,
      [
        '-v',
        'error',
        '-count_frames',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=nb_read_frames,start_time',
        '-of',
        'csv=p=0',
        video,
      ],
      { encoding: 'utf8' },
    )
      .trim()
      .split(',')
      .map(Number);
    assert.equal(r.frames, 60);
    assert.ok(Math.abs(start!) < 1e-3, `video starts at ${start}`);
    assert.ok(nb === r.frames || nb === r.frames - 1 || nb === r.frames + 1, `${nb} frames`);
  });

  test('abort kills the render and rejects', async () => {
    const ac = new AbortController();
    await assert.rejects(
      renderReplay({
        replay: madeFixture('perfect.osr'),
        beatmapPath: madeOsuFixture('made.osu'),
        outputVideoPath: join(out, 'b.mp4'),
        outputThumbnailPath: join(out, 'b.jpg'),
        options,
        onProgress: (p) => {
          if (p >= 10) ac.abort();
        },
        signal: ac.signal,
      }),
      (e: unknown) => e instanceof RenderAbortedError,
    );
  });
});

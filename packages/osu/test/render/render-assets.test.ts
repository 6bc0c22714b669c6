import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { zipSync } from 'fflate';
import {
  CursorTrack,
  decodeReplay,
  encodeReplay,
  Mods,
  playfieldTransform,
  renderReplay,
  resolveFfmpeg,
} from '../../src/index.js';
import { extractOsk } from '../../src/skin/extract-osk.js';
import { madeFixture, skipWithoutFfmpeg, smallRenderOptions, videoFrameAt } from '../helpers.js';

const { ffmpeg, ffprobe } = resolveFfmpeg();
const skip = skipWithoutFfmpeg();

const W = 320;
const H = 180;
const base = smallRenderOptions(W, H, 20, {
  bgDim: 0,
  storyboard: true,
  // frames are sampled across the clip: no ranking panel at its end
  resultsScreen: false,
});

function png(w: number, h: number, colour: string): Buffer {
  const c = createCanvas(w, h);
  const ctx = c.getContext('2d');
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, w, h);
  return c.encodeSync('png');
}

function frameAt(video: string, index: number): (x: number, y: number) => [number, number, number] {
  return videoFrameAt(video, index, W);
}

function streams(video: string): { codec_type: string; duration?: string }[] {
  return (
    JSON.parse(
      execFileSync(
        ffprobe,
        ['-v', 'error', '-show_entries', 'stream=codec_type,duration', '-of', 'json', video],
        { encoding: 'utf8' },
      ),
    ) as { streams: { codec_type: string; duration?: string }[] }
  ).streams;
}

describe('renderReplay with beatmap assets and a skin', { skip }, () => {
  let dir = '';
  let mapPath = '';
  let skinDir = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'osu-assets-test-'));
    const mapDir = join(dir, 'map');
    mkdirSync(mapDir);
    // the made beatmap (audio.wav, bg.png) with a video and two storyboard sprites added
    const text = madeFixture('made.osu')
      .toString('utf8')
      .replace(
        '0,0,"bg.png",0,0',
        '0,0,"bg.png",0,0\nVideo,0,"clip.mp4"\nSprite,Foreground,TopLeft,"sb.png",0,0\n F,0,-100000,1000000,1\nSprite,Foreground,TopLeft,"white.png",0,380\n F,0,-100000,1000000,1\n C,0,-100000,1000000,255,255,0',
      );
    mapPath = join(mapDir, 'map.osu');
    writeFileSync(mapPath, text);
    writeFileSync(join(mapDir, 'bg.png'), png(64, 36, 'rgb(255,0,0)'));
    writeFileSync(join(mapDir, 'sb.png'), png(100, 100, 'rgb(0,255,0)'));
    writeFileSync(join(mapDir, 'white.png'), png(100, 100, 'rgb(255,255,255)'));
    execFileSync(ffmpeg, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=20',
      join(mapDir, 'audio.wav'),
    ]);
    execFileSync(ffmpeg, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'color=c=blue:s=160x90:d=20:r=10',
      '-pix_fmt',
      'yuv420p',
      join(mapDir, 'clip.mp4'),
    ]);
    const osk = join(dir, 'Test Skin.osk');
    writeFileSync(
      osk,
      zipSync({
        'Test Skin/skin.ini': new TextEncoder().encode(
          '[General]\nName: Test Skin\n\n[Colours]\nCombo1: 0,0,255\n',
        ),
        'Test Skin/cursor@2x.png': png(64, 64, 'rgb(255,0,255)'),
      }),
    );
    skinDir = await extractOsk(osk, join(dir, 'skin'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('storyboard, background, audio and the skin cursor', async () => {
    const video = join(dir, 'a.mp4');
    const replayBytes = madeFixture('perfect.osr');
    const lines: string[] = [];
    const r = await renderReplay({
      replay: replayBytes,
      beatmapPath: mapPath,
      skinDir,
      outputVideoPath: video,
      outputThumbnailPath: join(dir, 'a.jpg'),
      options: base,
      log: (l) => lines.push(l),
    });
    assert.ok(
      lines.some((l) => l.startsWith('skin "Test Skin"')),
      lines.join('\n'),
    );
    assert.ok(lines.some((l) => l.startsWith('audio audio.wav')));
    assert.ok(lines.some((l) => l.startsWith("warning: the beatmap's MD5")));
    const s = streams(video);
    assert.ok(s.some((x) => x.codec_type === 'audio'));
    const k = Math.floor(r.frames / 2);
    const px = frameAt(video, k);
    // storyboard sprite: storyboard (0,0)-(100,100) -> screen x 40..77, y 0..37
    const [sr, sg, sb] = px(55, 15);
    assert.ok(sg > 180 && sr < 90 && sb < 90, `storyboard pixel ${sr},${sg},${sb}`);
    // white sprite tinted yellow by a C command: storyboard (0,380)-(100,480) -> x 40..77, y 142..180
    const [yr, yg, yb] = px(55, 170);
    assert.ok(yr > 200 && yg > 200 && yb < 80, `tinted storyboard pixel ${yr},${yg},${yb}`);
    // background outside the playfield and the storyboard: red
    const [br, bgc, bb] = px(8, 120);
    assert.ok(br > 180 && bgc < 90 && bb < 90, `background pixel ${br},${bgc},${bb}`);
    // cursor from the skin (magenta @2x image)
    const tr = playfieldTransform(W, H);
    const p = new CursorTrack(decodeReplay(replayBytes).frames).positionAt(
      r.startTimeMs + (k * 1000 * r.speed) / r.fps,
      { x: 0, y: 0 },
    );
    const [cr, cg, cb] = px(Math.round(tr.x + p.x * tr.scale), Math.round(tr.y + p.y * tr.scale));
    assert.ok(cr > 170 && cb > 170 && cg < 100, `cursor pixel ${cr},${cg},${cb}`);
  });

  test('a video that starts before the song delays the audio', async () => {
    const text = readFileSync(mapPath, 'utf8').replace(
      /^(\d+,\d+,)(\d+)(,.*)$/gm,
      (_m, a: string, t: string, b: string) => `${a}${Number(t) - 3000}${b}`,
    );
    const early = join(dir, 'map', 'early.osu');
    writeFileSync(early, text);
    const video = join(dir, 'c.mp4');
    const lines: string[] = [];
    const r = await renderReplay({
      replay: madeFixture('perfect.osr'),
      beatmapPath: early,
      outputVideoPath: video,
      outputThumbnailPath: join(dir, 'c.jpg'),
      options: { ...base, storyboard: false },
      log: (l) => lines.push(l),
    });
    assert.ok(r.startTimeMs < 0);
    assert.ok(
      lines.some((l) => l.includes('adelay=')),
      lines.join('\n'),
    );
    const audio = streams(video).find((x) => x.codec_type === 'audio');
    assert.ok(
      audio && Math.abs(Number(audio.duration) - r.durationSeconds) < 0.3,
      `audio ${audio?.duration} vs ${r.durationSeconds}`,
    );
  });

  test('beatmap video behind the playfield, NC audio, bg dim above 1 read as percent', async () => {
    const replay = decodeReplay(madeFixture('perfect.osr'));
    replay.mods |= Mods.DoubleTime | Mods.Nightcore;
    const video = join(dir, 'b.mp4');
    const lines: string[] = [];
    const r = await renderReplay({
      replay: encodeReplay(replay),
      beatmapPath: mapPath,
      outputVideoPath: video,
      outputThumbnailPath: join(dir, 'b.jpg'),
      options: { ...base, video: true, storyboard: false, bgDim: 50 },
      log: (l) => lines.push(l),
    });
    assert.equal(r.speed, 1.5);
    assert.ok(lines.some((l) => l.includes('at x1.5 (nightcore pitch)')));
    assert.ok(streams(video).some((x) => x.codec_type === 'audio'));
    assert.ok(lines.some((l) => l.startsWith('background video clip.mp4')));
    const [vr, vg, vb] = frameAt(video, Math.floor(r.frames / 2))(8, 120);
    // blue video dimmed to half
    assert.ok(vb > 90 && vb < 160 && vr < 40 && vg < 40, `video pixel ${vr},${vg},${vb}`);
  });
});

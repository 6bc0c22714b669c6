/**
 * bench:render-stages — times the node side of a 1080p render in isolation: drawing
 * (Skia records), readback (`canvas.data()`, where Skia rasterises and copies, or
 * `getImageData` with MODE=gid) and, with ENC=1 (ENC=blur for motion blur), the wait
 * for ffmpeg. N frames (default 300); RAW_OUT=file also writes the raw RGBA frames,
 * to time ffmpeg alone on them. MODS=FL adds Flashlight. The canvas is opaque as a
 * render's (OPAQUE=0 gives it an alpha channel, for A/B); HASH=1 prints a sha256 of
 * the frames read, to check that two variants draw the same pixels. Prints per-frame milliseconds
 * and node's CPU (user and system: most of the readback's variance is page faults in
 * the system time) and, with the encoder, ffmpeg's CPU. SPLIT=1 (without ENC) prints node's
 * CPU a frame in each stage instead: draw (Skia records), raster (a 1x1 `getImageData`,
 * which makes Skia play the recorded frame onto its surface), copy (`canvas.data()`, now
 * only the library's copy into a fresh block), convert (I420 with the motion blur, as a
 * render's encoder does) and young GC (`node --expose-gc`).
 */
// first: mimalloc's settings before the canvas library loads, as in a render
import '../src/render/canvas-allocator.js';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { decodeReplay } from '../src/replay/decode-replay.js';
import { FfmpegEncoder } from '../src/render/ffmpeg-encoder.js';
import { I420Converter } from '../src/render/encode/rgba-to-i420.js';
import { FrameDrawer } from '../src/render/frame-drawer.js';
import { prepareScene } from '../src/render/prepare-scene.js';
import { FrameRelease } from '../src/render/release-frames.js';

const dir =
  process.env.OSU_FIXTURES_DIR ??
  new URL('../../../../shared/fixtures/osu', import.meta.url).pathname;
const W = Number(process.env.W ?? 1920);
const H = Number(process.env.H ?? 1080);
const N = Number(process.env.N ?? 300);
const mode = process.env.MODE === 'gid' ? 'gid' : 'data';
const replay = decodeReplay(readFileSync(join(dir, 'realmagnolia.osr')));
// MODS=FL adds Flashlight (its mask is drawn every frame)
if (process.env.MODS === 'FL') replay.mods |= 1024;
const p = await prepareScene({
  replay,
  beatmapPath: join(dir, 'realmagnolia.osu'),
  skinDir: undefined,
  width: W,
  height: H,
  fps: 60,
  storyboard: true,
  draw: {
    bgDim: 0.8,
    introBgDim: 0,
    breakBgDim: 0.3,
    snakingIn: true,
    snakingOut: true,
    hitErrorMeter: true,
    keyOverlay: true,
    hpBar: true,
    unstableRate: true,
    hitCounter: true,
    resultsScreen: false,
    ppCounter: true,
    hitLighting: false,
    useBeatmapSkin: false,
    cursorSize: 1,
    useBeatmapColours: true,
  },
  log: () => undefined,
});
const start = p.startTime + 30000 * p.speed;
p.scene.introStart = start;
const canvas = createCanvas(W, H);
const ctx = canvas.getContext('2d', { alpha: process.env.OPAQUE === '0' });
const drawer = new FrameDrawer(p.scene);
const frameMs = (1000 / 60) * p.speed;
const hash = process.env.HASH ? createHash('sha256') : undefined;
const out = process.env.RAW_OUT ? createWriteStream(process.env.RAW_OUT) : undefined;
const tmp = mkdtempSync(join(tmpdir(), 'osu-stages-'));
const enc = process.env.ENC
  ? new FfmpegEncoder({
      ffmpeg: process.env.FFMPEG_PATH ?? 'ffmpeg',
      width: W,
      height: H,
      fps: 60,
      output: join(tmp, 'out.mp4'),
      durationSeconds: N / 60,
      audio: undefined,
      motionBlur: process.env.ENC === 'blur',
      preset: 'ultrafast',
      crf: 20,
      log: () => undefined,
    })
  : undefined;
/** CPU milliseconds of finished children (ffmpeg), from /proc where there is one. */
function childCpuMs(): number {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return NaN;
  }
}
if (process.env.SPLIT && !enc) {
  const converter = new I420Converter(W, H, 2, true);
  const release = new FrameRelease();
  const cpu: Record<string, number> = { draw: 0, raster: 0, copy: 0, convert: 0, 'young GC': 0 };
  let last = process.cpuUsage();
  const lap = (stage: string): void => {
    const now = process.cpuUsage();
    cpu[stage]! += (now.user - last.user + now.system - last.system) / 1000;
    last = now;
  };
  // the first frames (JIT, the allocator's first pass over its arena) are not counted
  const warm = 20;
  let total = process.cpuUsage();
  for (let i = -warm; i < N; i++) {
    if (i === 0) {
      for (const stage in cpu) cpu[stage] = 0;
      total = last = process.cpuUsage();
    }
    drawer.draw(ctx, start + i * frameMs);
    lap('draw');
    ctx.getImageData(0, 0, 1, 1);
    lap('raster');
    let frame: Uint8Array | undefined = canvas.data();
    lap('copy');
    const i420 = converter.convert(frame, i + warm);
    if (i >= 0) hash?.update(i420);
    lap('convert');
    const bytes = frame.byteLength;
    frame = undefined;
    release.released(bytes);
    lap('young GC');
    await new Promise((r) => setImmediate(r));
  }
  const all = process.cpuUsage(total);
  console.log(
    `${W}x${H} node CPU a frame ${((all.user + all.system) / 1000 / N).toFixed(2)} ms (system ${(all.system / 1000 / N).toFixed(2)}): ` +
      Object.entries(cpu)
        .map(([stage, ms]) => `${stage} ${(ms / N).toFixed(2)}`)
        .join(', ') +
      (hash ? `; I420 sha256 ${hash.digest('hex').slice(0, 16)}` : ''),
  );
  rmSync(tmp, { recursive: true, force: true });
  process.exit(0);
}
let tDraw = 0;
let tRead = 0;
let tWrite = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const a = performance.now();
  drawer.draw(ctx, start + i * frameMs);
  const b = performance.now();
  const buf =
    mode === 'data' ? canvas.data() : new Uint8Array(ctx.getImageData(0, 0, W, H).data.buffer);
  const c = performance.now();
  tDraw += b - a;
  tRead += c - b;
  hash?.update(buf);
  if (out && !out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
  if (enc) {
    await enc.write(buf);
    tWrite += performance.now() - c;
  } else await new Promise((r) => setImmediate(r)); // as in a render: lets finalizers free the frames
}
out?.end();
if (enc) {
  const w = performance.now();
  await enc.finish();
  tWrite += performance.now() - w;
}
const cpu = process.cpuUsage(cpu0);
const ffmpegMs = childCpuMs();
rmSync(tmp, { recursive: true, force: true });
const ms = (x: number): string => (x / N).toFixed(2);
console.log(
  `${W}x${H} ${mode}: draw ${ms(tDraw)} ms, readback ${ms(tRead)} ms` +
    (enc ? `, waiting for ffmpeg ${ms(tWrite)} ms` : '') +
    `, wall ${ms(performance.now() - t0)} ms/frame; node CPU user ${ms(cpu.user / 1000)} + system ${ms(cpu.system / 1000)} ms/frame` +
    (enc ? `, ffmpeg CPU ${ms(ffmpegMs)} ms/frame` : '') +
    (hash ? `; frames sha256 ${hash.digest('hex').slice(0, 16)}` : ''),
);

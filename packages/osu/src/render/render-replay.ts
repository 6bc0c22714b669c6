/**
 * renderReplay: replay + beatmap + skin -> MP4 (H.264, yuv420p, +faststart, audio)
 * and a JPEG thumbnail, honouring the render parameters of the render service
 * (resolution, bg_dim, motion_blur, storyboard, video, snaking_in/out, hit error meter,
 * key overlay). Frames are drawn by worker threads (or inline for small renders) and
 * streamed raw to ffmpeg in order. Reports progress, logs what it does, and stops
 * (killing ffmpeg) when the signal aborts.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { buildHitSoundTrack, type HitSoundTrack } from '../audio/hit-sound-track.js';
import { resolveFfmpeg } from '../ffmpeg/resolve-ffmpeg.js';
import type { JudgementSummary } from '../judgement/types.js';
import { decodeReplay } from '../replay/decode-replay.js';
import { Mods, modsToString } from '../replay/mods.js';
import { ReplayDecodeError } from '../replay/replay-decode-error.js';
import type { Replay } from '../replay/types.js';
import { FfmpegEncoder } from './ffmpeg-encoder.js';
import { FrameDrawer, readFrame } from './frame-drawer.js';
import { fileIn } from '../beatmap/beatmap-file.js';
import { prepareScene } from './prepare-scene.js';
import { VideoSource } from './video-source.js';
import { WorkerPool } from './worker-pool.js';

export interface RenderOptions {
  /** Output size: 1280x720, 1920x1080 or 3840x2160. @defaultValue '1080p' */
  resolution: '720p' | '1080p' | '4k';
  /** Background dim, 0 (none) to 1 (black); values above 1 are read as percent. @defaultValue 0.95 */
  bgDim: number;
  /** Blend neighbouring frames. @defaultValue true */
  motionBlur: boolean;
  /** Draw the beatmap's storyboard. @defaultValue true */
  storyboard: boolean;
  /** Play the beatmap's background video behind the playfield. @defaultValue false */
  video: boolean;
  /** @defaultValue true */
  snakingIn: boolean;
  /** @defaultValue true */
  snakingOut: boolean;
  /** @defaultValue true */
  hitErrorMeter: boolean;
  /** @defaultValue true */
  keyOverlay: boolean;
  /** Overrides of the resolution's size, for tests and benchmarks. */
  width?: number;
  height?: number;
  /** Frames per second, 1 to 240 (30 and 60 are the usual choices). @defaultValue 60 */
  fps?: number;
  /** Cut the video after this many seconds (previews, benchmarks). */
  maxSeconds?: number;
  /** Start this many seconds into the video (previews, benchmarks). */
  skipSeconds?: number;
  /** x264 preset. @defaultValue 'ultrafast' */
  preset?: string;
  /** x264 CRF. @defaultValue 20 */
  crf?: number;
  /** Music volume, 0 (none) to 100 (as the file). @defaultValue 100 */
  musicVolume?: number;
  /** Hitsound volume, 0 (none) to 100 (the map's own volumes). @defaultValue 100 */
  hitsoundVolume?: number;
  /** Where RGBA becomes yuv420p ('ffmpeg' is kept for comparison). @defaultValue 'node' */
  convert?: 'node' | 'ffmpeg';
  /** Frame-drawing worker threads; 0 draws on the calling thread. @defaultValue 0 below 4 cores, else cores - 2 (max 4) */
  workers?: number;
}

const RESOLUTIONS: Readonly<Record<RenderOptions['resolution'], readonly [number, number]>> = {
  '720p': [1280, 720],
  '1080p': [1920, 1080],
  '4k': [3840, 2160],
};

export const defaultRenderOptions: Readonly<RenderOptions> = Object.freeze({
  resolution: '1080p',
  bgDim: 0.95,
  motionBlur: true,
  storyboard: true,
  video: false,
  snakingIn: true,
  snakingOut: true,
  hitErrorMeter: true,
  keyOverlay: true,
});

export interface RenderInput {
  replay: Uint8Array | Replay;
  beatmapPath: string;
  skinDir?: string;
  outputVideoPath: string;
  outputThumbnailPath: string;
  options: RenderOptions;
  onProgress?: (percent: number) => void;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export interface RenderResult {
  frames: number;
  /** Map time (ms) of the first frame; frame i shows map time startTimeMs + i * 1000 / fps * speed. */
  startTimeMs: number;
  /** Playback rate of the mods (1.5 DT/NC, 0.75 HT, else 1). */
  speed: number;
  fps: number;
  durationSeconds: number;
  width: number;
  height: number;
  judgement: JudgementSummary;
}

export class RenderAbortedError extends Error {
  override readonly name = 'RenderAbortedError';
  readonly code = 'ABORTED';
}

/** A 0..100 volume option as a gain 0..1 (absent or not a number: full). */
function volume(v: number | undefined): number {
  if (v === undefined || !Number.isFinite(v)) return 1;
  return Math.min(100, Math.max(0, v)) / 100;
}

export function normalizeBgDim(v: number): number {
  if (!Number.isFinite(v)) return defaultRenderOptions.bgDim;
  let d = v;
  while (d > 1) d /= 100;
  return Math.min(1, Math.max(0, d));
}

export async function renderReplay(input: RenderInput): Promise<RenderResult> {
  const log = input.log ?? (() => undefined);
  const o = { ...defaultRenderOptions, ...input.options };
  const t0 = performance.now();
  const replay = input.replay instanceof Uint8Array ? decodeReplay(input.replay) : input.replay;
  if (replay.mode !== 0)
    throw new ReplayDecodeError(
      'UNSUPPORTED_MODE',
      `game mode ${replay.mode} is not supported (only osu! standard)`,
    );
  const base = RESOLUTIONS[o.resolution] ?? RESOLUTIONS['1080p'];
  const width = (o.width ?? base[0]!) & ~1;
  const height = (o.height ?? base[1]!) & ~1;
  const fps = o.fps ?? 60;
  if (!Number.isInteger(fps) || fps < 1 || fps > 240)
    throw new RangeError(`fps must be a whole number from 1 to 240, not ${fps}`);
  const bgDim = normalizeBgDim(o.bgDim);
  const draw = {
    bgDim,
    snakingIn: o.snakingIn,
    snakingOut: o.snakingOut,
    hitErrorMeter: o.hitErrorMeter,
    keyOverlay: o.keyOverlay,
  };
  log(
    `replay: ${replay.playerName}, mods ${modsToString(replay.mods)}, ${replay.frames.length} frames, header ${replay.n300}/${replay.n100}/${replay.n50}/${replay.misses} x${replay.maxCombo}`,
  );
  log(
    `options: ${width}x${height}@${fps}, bg_dim ${bgDim}, motion_blur ${o.motionBlur}, storyboard ${o.storyboard}, video ${o.video}, snaking ${o.snakingIn}/${o.snakingOut}, hit_error_meter ${o.hitErrorMeter}, key_overlay ${o.keyOverlay}`,
  );

  // what the scene is built from, here and again in each worker thread
  const sceneArgs = {
    replay,
    beatmapPath: input.beatmapPath,
    skinDir: input.skinDir,
    width,
    height,
    fps,
    storyboard: o.storyboard,
    draw,
  };
  const prepared = await prepareScene({ ...sceneArgs, log });
  const { beatmap, judgement, speed, folder } = prepared;
  const skipSeconds = Math.max(0, Math.min(o.skipSeconds ?? 0, prepared.durationSeconds - 1 / fps));
  const startTime = prepared.startTime + skipSeconds * 1000 * speed;
  const durationSeconds = Math.min(
    prepared.durationSeconds - skipSeconds,
    o.maxSeconds ?? Infinity,
  );
  const frames = Math.max(1, Math.ceil(durationSeconds * fps));
  prepared.scene.introStart = startTime;
  log(
    `beatmap: ${beatmap.metadata.artist} - ${beatmap.metadata.title} [${beatmap.metadata.version}] by ${beatmap.metadata.creator}, ${beatmap.hitObjects.length} objects`,
  );
  log(
    `judgement: ${judgement.n300}/${judgement.n100}/${judgement.n50}/${judgement.misses} max combo ${judgement.maxCombo}, UR ${judgement.unstableRate.toFixed(2)}`,
  );
  log(
    `video covers map time ${Math.round(startTime)}..${Math.round(startTime + durationSeconds * 1000 * speed)} ms: ${frames} frames, ${durationSeconds.toFixed(2)} s`,
  );

  const { ffmpeg, ffprobe } = resolveFfmpeg();
  const audioPath = await fileIn(folder, beatmap.audioFilename);
  const nightcoreRate =
    audioPath && (replay.mods & Mods.Nightcore) !== 0
      ? await sampleRate(ffprobe, audioPath)
      : undefined;
  if (audioPath)
    log(
      `audio ${beatmap.audioFilename}${speed !== 1 ? ` at x${speed}${nightcoreRate ? ' (nightcore pitch)' : ''}` : ''}`,
    );
  else log('no audio file: silent video');
  let video: VideoSource | undefined;
  let videoFirstFrame = 0;
  if (o.video) {
    const videoPath = await fileIn(folder, beatmap.events.videoFilename);
    if (videoPath) {
      const offset = beatmap.events.videoOffset;
      const frameMs = (1000 / fps) * speed;
      videoFirstFrame = startTime >= offset ? 0 : Math.ceil((offset - startTime) / frameMs);
      const seek =
        startTime >= offset
          ? (startTime - offset) / 1000
          : (startTime + videoFirstFrame * frameMs - offset) / 1000;
      video = new VideoSource(ffmpeg, videoPath, seek, width, height, fps, speed);
      log(`background video ${beatmap.events.videoFilename} from ${seek.toFixed(2)} s`);
    } else
      log(
        beatmap.events.videoFilename
          ? `video ${beatmap.events.videoFilename} not found: skipped`
          : 'the beatmap has no video',
      );
  }

  await mkdir(dirname(input.outputVideoPath), { recursive: true });
  const hitsoundVolume = volume(o.hitsoundVolume);
  const musicVolume = volume(o.musicVolume);
  let hitSounds: HitSoundTrack | undefined;
  if (hitsoundVolume > 0)
    hitSounds = await buildHitSoundTrack({
      play: prepared.scene.play,
      judgement,
      ffmpeg,
      beatmapDir: folder,
      skinDir: input.skinDir,
      startTime,
      speed,
      durationSeconds: frames / fps,
      volume: hitsoundVolume,
      outputPath: `${input.outputVideoPath}.hitsounds.pcm`,
      log,
    });
  log(
    `volumes: music ${Math.round(musicVolume * 100)}, hitsounds ${Math.round(hitsoundVolume * 100)}`,
  );
  const encoder = new FfmpegEncoder({
    ffmpeg,
    width,
    height,
    fps,
    output: input.outputVideoPath,
    durationSeconds: frames / fps,
    audio: audioPath
      ? { path: audioPath, startSeconds: startTime / 1000, speed, resampleFrom: nightcoreRate }
      : undefined,
    hitSounds,
    musicVolume,
    motionBlur: o.motionBlur,
    preset: o.preset ?? 'ultrafast',
    crf: o.crf ?? 20,
    convert: o.convert,
    log,
  });

  // on 2 cores, drawing inline beside ffmpeg beats worker threads (the frame copies cost more than they save)
  const workerCount = video
    ? 0
    : (o.workers ?? (availableParallelism() < 4 ? 0 : Math.min(4, availableParallelism() - 2)));
  let pool: WorkerPool | undefined;
  const onAbort = (): void => {
    encoder.kill();
    video?.close();
    void pool?.close();
  };
  if (input.signal?.aborted) {
    onAbort();
    throw new RenderAbortedError('render aborted');
  }
  input.signal?.addEventListener('abort', onAbort, { once: true });
  let lastPercent = -1;
  const progress = (i: number): void => {
    const p = Math.floor((i / frames) * 100);
    if (p !== lastPercent) {
      lastPercent = p;
      input.onProgress?.(Math.min(99, p));
      if (p % 10 === 0 && p > 0 && p < 100) {
        const secs = (performance.now() - drawStart) / 1000;
        log(`drawn ${p}%: ${i}/${frames} frames, ${(i / secs).toFixed(1)} fps`);
      }
    }
  };
  const drawStart = performance.now();
  const frameMs = (1000 / fps) * speed;
  try {
    if (workerCount > 0) {
      log(`drawing with ${workerCount} worker threads`);
      pool = new WorkerPool(workerCount, { ...sceneArgs, startTime });
      await pool.ready();
      await pool.render(frames, async (i, data) => {
        if (input.signal?.aborted) throw new RenderAbortedError('render aborted');
        await encoder.write(data);
        progress(i + 1);
      });
      await pool.close();
    } else {
      const canvas = createCanvas(width, height);
      const ctx = canvas.getContext('2d');
      const drawer = new FrameDrawer(prepared.scene);
      for (let i = 0; i < frames; i++) {
        if (input.signal?.aborted) throw new RenderAbortedError('render aborted');
        const t = startTime + i * frameMs;
        const vf = video && i >= videoFirstFrame ? await video.next() : undefined;
        drawer.draw(ctx, t, vf);
        await encoder.write(readFrame(ctx, width, height));
        progress(i + 1);
      }
    }
    await encoder.finish();
  } catch (err) {
    onAbort();
    if (input.signal?.aborted) throw new RenderAbortedError('render aborted');
    throw err;
  } finally {
    input.signal?.removeEventListener('abort', onAbort);
    video?.close();
    if (hitSounds) await rm(hitSounds.path, { force: true });
  }
  await thumbnail(ffmpeg, input.outputVideoPath, input.outputThumbnailPath, (frames / fps) * 0.4);
  log(`thumbnail at ${((frames / fps) * 0.4).toFixed(2)} s`);
  const secs = (performance.now() - t0) / 1000;
  log(
    `done: ${frames} frames in ${secs.toFixed(1)} s (${(frames / secs).toFixed(1)} fps, x${(durationSeconds / secs).toFixed(2)} real time)`,
  );
  input.onProgress?.(100);
  return {
    frames,
    startTimeMs: startTime,
    speed,
    fps,
    durationSeconds: frames / fps,
    width,
    height,
    judgement: {
      n300: judgement.n300,
      n100: judgement.n100,
      n50: judgement.n50,
      misses: judgement.misses,
      maxCombo: judgement.maxCombo,
      unstableRate: judgement.unstableRate,
      accuracy: judgement.accuracy,
      score: judgement.score,
    },
  };
}

async function thumbnail(ffmpeg: string, video: string, out: string, at: number): Promise<void> {
  await mkdir(dirname(out), { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const p = spawn(
      ffmpeg,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-ss',
        at.toFixed(3),
        '-i',
        video,
        '-frames:v',
        '1',
        '-q:v',
        '3',
        '-f',
        'image2',
        out,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`thumbnail failed: ${err.trim()}`)),
    );
  });
}

/** Sample rate of the first audio stream, or undefined when ffprobe cannot tell. */
function sampleRate(ffprobe: string, path: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile(
      ffprobe,
      [
        '-v',
        'error',
        '-select_streams',
        'a:0',
        '-show_entries',
        'stream=sample_rate',
        '-of',
        'csv=p=0',
        path,
      ],
      { timeout: 10_000 },
      (err, stdout) => {
        const n = Number(String(stdout).trim());
        resolve(!err && n > 0 ? n : undefined);
      },
    );
  });
}

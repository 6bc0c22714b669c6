/**
 * renderReplay: replay + beatmap + skin -> MP4 (H.264, yuv420p BT.709, +faststart,
 * music and hitsounds) and a JPEG thumbnail, honouring the render parameters of the
 * render service and the package's own (render-options). Prepares the scene, picks the
 * part of the play to draw (render-window), opens the media inputs, draws the frames
 * into the encoder (frame-loop), reports progress (render-progress), logs what it does,
 * and stops (killing ffmpeg) when the signal aborts.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resolveFfmpeg, type FfmpegPaths } from '../ffmpeg/resolve-ffmpeg.js';
import type { JudgementSummary } from '../judgement/types.js';
import { decodeReplay } from '../replay/decode-replay.js';
import { modsToString } from '../replay/mods.js';
import { ReplayDecodeError } from '../replay/replay-decode-error.js';
import type { Replay } from '../replay/types.js';
import { FfmpegEncoder } from './ffmpeg-encoder.js';
import { drawFrames, RenderAbortedError, workerCount, x264ThreadsFor } from './frame-loop.js';
import { openMediaInputs, type MediaInputs } from './media-inputs.js';
import { prepareScene } from './prepare-scene.js';
import { resolveOptions, type RenderOptions } from './render-options.js';
import { progressReporter } from './render-progress.js';
import { renderWindow } from './render-window.js';
import type { WorkerPool } from './worker-pool.js';

export { defaultRenderOptions, normalizeBgDim } from './render-options.js';
export type { RenderOptions } from './render-options.js';
export { RenderAbortedError } from './frame-loop.js';

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
  /** ffmpeg and ffprobe to run. @defaultValue found on PATH, else the bundled ones */
  ffmpeg?: FfmpegPaths;
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

export async function renderReplay(input: RenderInput): Promise<RenderResult> {
  const log = input.log ?? (() => undefined);
  const o = resolveOptions(input.options);
  const { width, height, fps, draw } = o;
  const t0 = performance.now();
  const replay = input.replay instanceof Uint8Array ? decodeReplay(input.replay) : input.replay;
  if (replay.mode !== 0)
    throw new ReplayDecodeError(
      'UNSUPPORTED_MODE',
      `game mode ${replay.mode} is not supported (only osu! standard)`,
    );
  log(
    `replay: ${replay.playerName}, mods ${modsToString(replay.mods)}, ${replay.frames.length} frames, header ${replay.n300}/${replay.n100}/${replay.n50}/${replay.misses} x${replay.maxCombo}`,
  );
  log(
    `options: ${width}x${height}@${fps}, bg_dim ${draw.bgDim}, motion_blur ${o.motionBlur}, storyboard ${o.storyboard}, video ${o.video}, snaking ${o.snakingIn}/${o.snakingOut}, hit_error_meter ${o.hitErrorMeter}, key_overlay ${o.keyOverlay}, hp_bar ${draw.hpBar}, unstable_rate ${draw.unstableRate}, hit_counter ${draw.hitCounter}, results_screen ${draw.resultsScreen}, volumes music ${Math.round(o.musicVolume * 100)} hitsounds ${Math.round(o.hitsoundVolume * 100)}`,
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
  const { beatmap, judgement, speed } = prepared;
  const { startTime, durationSeconds, frames } = renderWindow({
    sceneStart: prepared.startTime,
    sceneSeconds: prepared.durationSeconds,
    speed,
    fps,
    skipSeconds: o.skipSeconds,
    maxSeconds: o.maxSeconds,
  });
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

  const { ffmpeg, ffprobe } = resolveFfmpeg(input.ffmpeg);
  await mkdir(dirname(input.outputVideoPath), { recursive: true });
  await mkdir(dirname(input.outputThumbnailPath), { recursive: true });
  // the thumbnail is the frame 40% into the video, taken by the encoder as it passes
  const thumbFrame = Math.min(frames - 1, Math.round(frames * 0.4));
  let media: MediaInputs | undefined;
  let encoder: FfmpegEncoder | undefined;
  let pool: WorkerPool | undefined;
  const onAbort = (): void => {
    encoder?.kill();
    media?.video?.close();
    void pool?.close();
  };
  if (input.signal?.aborted) throw new RenderAbortedError('render aborted');
  input.signal?.addEventListener('abort', onAbort, { once: true });
  const progress = progressReporter(frames, input.onProgress, log);
  try {
    media = await openMediaInputs({
      prepared,
      ffmpeg,
      ffprobe,
      skinDir: input.skinDir,
      mods: replay.mods,
      startTime,
      frames,
      width,
      height,
      fps,
      video: o.video,
      hitsoundVolume: o.hitsoundVolume,
      hitSoundPath: `${input.outputVideoPath}.hitsounds.pcm`,
      log,
    });
    if (input.signal?.aborted) throw new RenderAbortedError('render aborted');
    encoder = new FfmpegEncoder({
      ffmpeg,
      width,
      height,
      fps,
      output: input.outputVideoPath,
      durationSeconds: frames / fps,
      audio: media.music,
      hitSounds: media.hitSounds,
      musicVolume: o.musicVolume,
      motionBlur: o.motionBlur,
      preset: o.preset ?? 'ultrafast',
      crf: o.crf ?? 20,
      x264Threads:
        o.x264Threads ?? x264ThreadsFor(workerCount(o.workers, media.video !== undefined)),
      convert: o.convert,
      thumbnail: { path: input.outputThumbnailPath, frame: thumbFrame },
      log,
    });
    await drawFrames({
      prepared,
      sceneArgs,
      encoder,
      startTime,
      frames,
      fps,
      width,
      height,
      video: media.video,
      videoFirstFrame: media.videoFirstFrame,
      workers: o.workers,
      signal: input.signal,
      progress,
      log,
      onPool: (p) => (pool = p),
    });
    await encoder.finish();
  } catch (err) {
    onAbort();
    if (input.signal?.aborted) throw new RenderAbortedError('render aborted');
    throw err;
  } finally {
    input.signal?.removeEventListener('abort', onAbort);
    await media?.close();
  }
  log(`thumbnail: frame ${thumbFrame} (${(thumbFrame / fps).toFixed(2)} s)`);
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

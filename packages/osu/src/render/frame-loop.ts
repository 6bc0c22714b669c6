/**
 * Draws a render's frames in order and hands each to the encoder: on the calling
 * thread (what 2 cores want: the frame copies of worker threads cost more than they
 * save) or through a pool of worker threads. Stops at the first frame after `signal`
 * aborts; reports each frame drawn.
 */
import { availableParallelism } from 'node:os';
import type { FfmpegEncoder } from './ffmpeg-encoder.js';
import { createFrameCanvas, FrameDrawer, readFrame } from './frame-drawer.js';
import type { PrepareArgs, PreparedRender } from './prepare-scene.js';
import { FrameRelease } from './release-frames.js';
import { StageProfile } from './stage-profile.js';
import type { VideoSource } from './video-source.js';
import { WorkerPool } from './worker-pool.js';

export class RenderAbortedError extends Error {
  override readonly name = 'RenderAbortedError';
  readonly code = 'ABORTED';
}

export interface FrameLoopArgs {
  prepared: PreparedRender;
  /** How each worker thread rebuilds the scene. */
  sceneArgs: Omit<PrepareArgs, 'log'>;
  encoder: FfmpegEncoder;
  startTime: number;
  frames: number;
  fps: number;
  width: number;
  height: number;
  video: VideoSource | undefined;
  videoFirstFrame: number;
  /** Worker threads asked for; undefined picks by core count. */
  workers: number | undefined;
  signal: AbortSignal | undefined;
  /** Called with the number of frames drawn so far. */
  progress: (drawn: number) => void;
  log: (line: string) => void;
  /** Set once a pool runs, so an abort can close it. */
  onPool?: (pool: WorkerPool) => void;
}

/** Worker threads for a render: none with a video (frames come in order from one decoder) or below 4 cores. */
export function workerCount(requested: number | undefined, hasVideo: boolean): number {
  if (hasVideo) return 0;
  const cores = availableParallelism();
  return requested ?? (cores < 4 ? 0 : Math.min(4, cores - 2));
}

/**
 * x264's threads when the render does not say. With the frames drawn on this thread (no
 * worker threads) the frame loop keeps one core busy, so x264 gets the others, at least
 * one: its own choice (1.5 threads a core) fought the frame loop for the second core of a
 * 2-core machine (quiet A/B of 27 Nov, 1080p: x1.62-1.73 real time with x264's choice,
 * x2.01-2.10 with one thread; 4k unchanged; README, Benchmarks). With worker threads
 * drawing, x264 keeps its own choice.
 */
export function x264ThreadsFor(
  drawWorkers: number,
  cores = availableParallelism(),
): number | undefined {
  return drawWorkers > 0 ? undefined : Math.max(1, cores - 1);
}

export async function drawFrames(a: FrameLoopArgs): Promise<void> {
  const count = workerCount(a.workers, a.video !== undefined);
  const frameMs = (1000 / a.fps) * a.prepared.speed;
  const check = (): void => {
    if (a.signal?.aborted) throw new RenderAbortedError('render aborted');
  };
  if (count > 0) {
    a.log(`drawing with ${count} worker threads`);
    const pool = new WorkerPool(count, { ...a.sceneArgs, startTime: a.startTime });
    a.onPool?.(pool);
    await pool.ready();
    await pool.render(a.frames, async (i, data) => {
      check();
      await a.encoder.write(data);
      a.progress(i + 1);
    });
    await pool.close();
    return;
  }
  const ctx = createFrameCanvas(a.width, a.height);
  const drawer = new FrameDrawer(a.prepared.scene);
  const profile = new StageProfile();
  const release = new FrameRelease();
  if (!release.collecting)
    a.log('frames left to V8: no young collection without node --expose-gc at start');
  for (let i = 0; i < a.frames; i++) {
    check();
    const vf = a.video && i >= a.videoFirstFrame ? await a.video.next() : undefined;
    if (a.video) profile.lap('video decode');
    drawer.draw(ctx, a.startTime + i * frameMs, vf);
    profile.lap('draw');
    let frame: Uint8Array | undefined = readFrame(ctx);
    profile.lap('readback');
    await a.encoder.write(frame, profile);
    const bytes = frame.byteLength;
    // dropped first, or the variable keeps it alive through the collection
    frame = undefined;
    release.released(bytes);
    profile.lap('young GC');
    a.progress(i + 1);
    profile.lap('other');
  }
  a.log(profile.summary(a.frames));
}

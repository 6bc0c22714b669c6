/**
 * Which part of the play the video covers: the scene's own span, less the seconds the
 * caller skips at the start (`skipSeconds`, at least one frame is kept) and cut to
 * `maxSeconds`. Map time runs `speed` times faster than video time (DT, HT).
 */
export interface RenderWindow {
  /** Map time (ms) of the first frame. */
  startTime: number;
  /** Video seconds drawn before rounding up to whole frames. */
  durationSeconds: number;
  frames: number;
}

export function renderWindow(args: {
  sceneStart: number;
  sceneSeconds: number;
  speed: number;
  fps: number;
  skipSeconds?: number | undefined;
  maxSeconds?: number | undefined;
}): RenderWindow {
  const { sceneStart, sceneSeconds, speed, fps } = args;
  const skip = Math.max(0, Math.min(args.skipSeconds ?? 0, sceneSeconds - 1 / fps));
  const durationSeconds = Math.min(sceneSeconds - skip, args.maxSeconds ?? Infinity);
  return {
    startTime: sceneStart + skip * 1000 * speed,
    durationSeconds,
    frames: Math.max(1, Math.ceil(durationSeconds * fps)),
  };
}

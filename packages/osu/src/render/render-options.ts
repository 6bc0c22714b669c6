/**
 * The render options (the render service's parameters and the package's own), their
 * defaults (the spec's; overlays as o!rdr's), and their resolution into what the
 * renderer uses: output size, fps, dim, volumes and the drawing options.
 */
import type { DrawOptions } from './frame-drawer.js';

export interface RenderOptions {
  /** Output size: 1280x720, 1920x1080 or 3840x2160. @defaultValue '1080p' */
  resolution: '720p' | '1080p' | '4k';
  /** Background dim while playing, 0 (none) to 1 (black); values above 1 are read as percent. @defaultValue 0.95 */
  bgDim: number;
  /** Background dim before the first object appears (o!rdr's intro dim), as bgDim. @defaultValue 0 */
  introBgDim?: number;
  /** Background dim inside the map's breaks (o!rdr's break dim), as bgDim. @defaultValue 0.3 */
  breakBgDim?: number;
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
  /** HP bar (the game's life graph from the replay). @defaultValue true */
  hpBar?: boolean;
  /** Running unstable rate above the hit error meter. @defaultValue true */
  unstableRate?: boolean;
  /** Counts of 100s, 50s, misses and slider breaks. @defaultValue false */
  hitCounter?: boolean;
  /** The ranking panel (grade, counts, accuracy, max combo) for 5 s after a completed play. @defaultValue true */
  resultsScreen?: boolean;
  /** Performance points of the play so far, under the accuracy. @defaultValue true */
  ppCounter?: boolean;
  /** A glow in the combo colour where a circle is hit (the skin's `lighting`). @defaultValue false */
  hitLighting?: boolean;
  /** Images the beatmap's folder ships (a beatmap skin) over the skin's. @defaultValue false */
  useBeatmapSkin?: boolean;
  /** Cursor size, 0.5 to 2 (o!rdr's cursor_size). @defaultValue 1 */
  cursorSize?: number;
  /** Combo colours from the beatmap where it has them; false uses the skin's. @defaultValue true */
  useBeatmapColours?: boolean;
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
  /**
   * x264 threads (`-threads`). Undefined: every core but the frame loop's (at least one)
   * when frames are drawn on the main thread, x264's own choice (1.5 a core) when worker
   * threads draw (`x264ThreadsFor`, frame-loop.ts).
   */
  x264Threads?: number;
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

/** The options a player sets beyond the spec's, as the render service accepts them. */
export type ExtraRenderOptionKey =
  | 'musicVolume'
  | 'hitsoundVolume'
  | 'hpBar'
  | 'unstableRate'
  | 'hitCounter'
  | 'resultsScreen'
  | 'ppCounter'
  | 'hitLighting'
  | 'useBeatmapSkin'
  | 'useBeatmapColours'
  | 'cursorSize'
  | 'introBgDim'
  | 'breakBgDim'
  | 'fps';

/** Their defaults: o!rdr's, where o!rdr has the option. */
export const defaultExtraRenderOptions: Readonly<
  Required<Pick<RenderOptions, ExtraRenderOptionKey>>
> = Object.freeze({
  musicVolume: 100,
  hitsoundVolume: 100,
  hpBar: true,
  unstableRate: true,
  hitCounter: false,
  resultsScreen: true,
  ppCounter: true,
  hitLighting: false,
  useBeatmapSkin: false,
  useBeatmapColours: true,
  cursorSize: 1,
  introBgDim: 0,
  breakBgDim: 0.3,
  fps: 60,
});

export interface ResolvedOptions {
  width: number;
  height: number;
  fps: number;
  /** 0..1 */
  musicVolume: number;
  hitsoundVolume: number;
  draw: DrawOptions;
}

/** Merges the defaults, checks fps, and turns sizes, dim and volumes into the renderer's units. */
export function resolveOptions(options: RenderOptions): RenderOptions & ResolvedOptions {
  const o = { ...defaultRenderOptions, ...options };
  const base = RESOLUTIONS[o.resolution] ?? RESOLUTIONS['1080p'];
  const fps = o.fps ?? defaultExtraRenderOptions.fps;
  if (!Number.isInteger(fps) || fps < 1 || fps > 240)
    throw new RangeError(`fps must be a whole number from 1 to 240, not ${fps}`);
  return {
    ...o,
    width: (o.width ?? base[0]) & ~1,
    height: (o.height ?? base[1]) & ~1,
    fps,
    musicVolume: volume(o.musicVolume),
    hitsoundVolume: volume(o.hitsoundVolume),
    draw: {
      bgDim: normalizeBgDim(o.bgDim),
      introBgDim: normalizeBgDim(o.introBgDim ?? defaultExtraRenderOptions.introBgDim),
      breakBgDim: normalizeBgDim(o.breakBgDim ?? defaultExtraRenderOptions.breakBgDim),
      snakingIn: o.snakingIn,
      snakingOut: o.snakingOut,
      hitErrorMeter: o.hitErrorMeter,
      keyOverlay: o.keyOverlay,
      hpBar: o.hpBar ?? defaultExtraRenderOptions.hpBar,
      unstableRate: o.unstableRate ?? defaultExtraRenderOptions.unstableRate,
      hitCounter: o.hitCounter ?? defaultExtraRenderOptions.hitCounter,
      resultsScreen: o.resultsScreen ?? defaultExtraRenderOptions.resultsScreen,
      ppCounter: o.ppCounter ?? defaultExtraRenderOptions.ppCounter,
      hitLighting: o.hitLighting ?? defaultExtraRenderOptions.hitLighting,
      useBeatmapSkin: o.useBeatmapSkin ?? defaultExtraRenderOptions.useBeatmapSkin,
      cursorSize: clamp(o.cursorSize, 0.5, 2, defaultExtraRenderOptions.cursorSize),
      useBeatmapColours: o.useBeatmapColours ?? defaultExtraRenderOptions.useBeatmapColours,
    },
  };
}

/** `v` within lo..hi; absent or not a number: `fallback`. */
function clamp(v: number | undefined, lo: number, hi: number, fallback: number): number {
  return v === undefined || !Number.isFinite(v) ? fallback : Math.min(hi, Math.max(lo, v));
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

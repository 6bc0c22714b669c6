/**
 * The one renderer call the worker makes: `renderReplay` of `@platform/osu`. It is a type
 * of its own so the pipeline takes it as a dependency, and tests can hand the worker a
 * renderer that fails or hangs on purpose.
 */
import { renderReplay, type FfmpegPaths, type RenderInput, type RenderResult } from '@platform/osu';

export type Renderer = (input: RenderInput) => Promise<RenderResult>;

/** The osu! renderer running the ffmpeg the configuration names (`FFMPEG_PATH`, `FFPROBE_PATH`). */
export const createOsuRenderer =
  (ffmpeg: FfmpegPaths = {}): Renderer =>
  (input) =>
    renderReplay({ ...input, ffmpeg });

/** With ffmpeg found on PATH (or bundled). */
export const osuRenderer: Renderer = createOsuRenderer();

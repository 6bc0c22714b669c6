/**
 * The one renderer call the worker makes, as this service sees it: `renderReplay` of
 * `@platform/osu`, looked up when first used so the service starts (and every other
 * route works) even on a build of the library that does not have it yet.
 */
import type { Replay } from '@platform/osu';
import type { RenderJobOptions } from '../jobs/job-store.js';

/** The job's options plus an optional fixed output size and frame rate. */
export interface RenderOptions extends RenderJobOptions {
  width?: number;
  height?: number;
  fps?: number;
}

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
  durationSeconds: number;
  width: number;
  height: number;
}

export type Renderer = (input: RenderInput) => Promise<RenderResult>;

/** `renderReplay` from `@platform/osu`, or an error naming what is missing. */
export async function loadOsuRenderer(): Promise<Renderer> {
  const osu = (await import('@platform/osu')) as Record<string, unknown>;
  const render = osu.renderReplay;
  if (typeof render !== 'function')
    throw new Error('@platform/osu does not export renderReplay in this build');
  return render as Renderer;
}

/** A renderer that resolves `renderReplay` lazily, at the first job. */
export function lazyOsuRenderer(): Renderer {
  let loaded: Promise<Renderer> | undefined;
  return async (input) => {
    loaded ??= loadOsuRenderer();
    try {
      return await (
        await loaded
      )(input);
    } catch (error) {
      if (error instanceof Error && error.message.includes('does not export renderReplay'))
        loaded = undefined;
      throw error;
    }
  };
}

/**
 * Test helpers: the made fixture set, the real game files (for fidelity tests: where they
 * are, and a loud skip when they are not), and a loud skip when ffmpeg is missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { madeOsuFixture } from '@platform/testing';
import { resolveFfmpeg } from '../src/ffmpeg/resolve-ffmpeg.js';
import type { RenderOptions } from '../src/render/render-options.js';

export const fixturesDir =
  process.env.OSU_FIXTURES_DIR ??
  resolve(fileURLToPath(new URL('../../../../shared/fixtures/osu', import.meta.url)));

/** false when the fixtures exist; otherwise the reason, printed to stderr (use as node:test `skip`). */
export function skipWithoutFixtures(): string | false {
  if (existsSync(fixturesDir) && readdirSync(fixturesDir).some((f) => f.endsWith('.osr')))
    return false;
  const reason = `osu! fixtures folder ${fixturesDir} is absent`;
  process.stderr.write(`SKIP (loud): ${reason}\n`);
  return reason;
}

export function fixture(name: string): Buffer {
  return readFileSync(join(fixturesDir, name));
}

/** One file of the made osu! fixture set of `@platform/testing` (always present). */
export function madeFixture(name: string): Buffer {
  return readFileSync(madeOsuFixture(name));
}

export function fixtureNames(ext: string): string[] {
  return existsSync(fixturesDir)
    ? readdirSync(fixturesDir)
        .filter((f) => f.endsWith(ext))
        .sort()
    : [];
}

/** false when ffmpeg and ffprobe are found; otherwise the reason, printed to stderr. */
export function skipWithoutFfmpeg(): string | false {
  const { ffmpeg, ffprobe } = resolveFfmpeg();
  if (existsSync(ffmpeg) && existsSync(ffprobe)) return false;
  const reason = `ffmpeg/ffprobe not found (${ffmpeg}, ${ffprobe})`;
  process.stderr.write(`SKIP (loud): ${reason}\n`);
  return reason;
}

/** Frame `index` of `video` (`width` pixels wide) decoded to RGB: a pixel reader. */
export function videoFrameAt(
  video: string,
  index: number,
  width: number,
): (x: number, y: number) => [number, number, number] {
  const rgb = execFileSync(
    resolveFfmpeg().ffmpeg,
    [
      '-v',
      'error',
      '-i',
      video,
      '-vf',
      `select=eq(n\\,${index})`,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { maxBuffer: 64 << 20 },
  );
  return (x, y) => {
    const o = (y * width + x) * 3;
    return [rgb[o]!, rgb[o + 1]!, rgb[o + 2]!];
  };
}

/** Render options for small test renders: every overlay off unless asked for. */
export function smallRenderOptions(
  width: number,
  height: number,
  fps: number,
  extra: Partial<RenderOptions> = {},
): RenderOptions {
  return {
    resolution: '1080p',
    bgDim: 1,
    motionBlur: false,
    storyboard: false,
    video: false,
    snakingIn: true,
    snakingOut: true,
    hitErrorMeter: false,
    keyOverlay: false,
    width,
    height,
    fps,
    ...extra,
  };
}

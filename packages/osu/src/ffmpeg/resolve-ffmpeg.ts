/**
 * Finds ffmpeg and ffprobe: FFMPEG_PATH / FFPROBE_PATH when set, else the system's
 * (on PATH), else the binaries shipped in @ffmpeg-installer / @ffprobe-installer
 * (made executable when npm did not run their install scripts).
 */
import { accessSync, chmodSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function bundled(pkg: string, platformPkg: string, name: string): string | undefined {
  try {
    const dir = dirname(require.resolve(`${platformPkg}/package.json`));
    const bin = join(dir, process.platform === 'win32' ? `${name}.exe` : name);
    if (!existsSync(bin)) return undefined;
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      chmodSync(bin, 0o755);
    }
    return bin;
  } catch {
    try {
      return (require(pkg) as { path: string }).path;
    } catch {
      return undefined;
    }
  }
}

let cached: { ffmpeg: string; ffprobe: string } | undefined;

export function resolveFfmpeg(): { ffmpeg: string; ffprobe: string } {
  if (cached && !process.env.FFMPEG_PATH && !process.env.FFPROBE_PATH) return cached;
  const platform = `${process.platform}-${process.arch}`;
  const ffmpeg =
    process.env.FFMPEG_PATH ||
    onPath('ffmpeg') ||
    bundled('@ffmpeg-installer/ffmpeg', `@ffmpeg-installer/${platform}`, 'ffmpeg') ||
    'ffmpeg';
  const ffprobe =
    process.env.FFPROBE_PATH ||
    (process.env.FFMPEG_PATH && existsSync(join(dirname(process.env.FFMPEG_PATH), 'ffprobe'))
      ? join(dirname(process.env.FFMPEG_PATH), 'ffprobe')
      : undefined) ||
    onPath('ffprobe') ||
    bundled('@ffprobe-installer/ffprobe', `@ffprobe-installer/${platform}`, 'ffprobe') ||
    'ffprobe';
  cached = { ffmpeg, ffprobe };
  return cached;
}

/** True when the resolved ffmpeg runs. */
export function ffmpegAvailable(): boolean {
  const { ffmpeg } = resolveFfmpeg();
  return ffmpeg !== 'ffmpeg' && existsSync(ffmpeg);
}

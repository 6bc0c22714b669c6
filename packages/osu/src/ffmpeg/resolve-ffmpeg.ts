/**
 * Finds ffmpeg and ffprobe: the paths the caller gives (a service reads them from its
 * configuration, e.g. render's FFMPEG_PATH / FFPROBE_PATH; this package reads no
 * environment), else the system's (on PATH), else the binaries shipped in
 * @ffmpeg-installer / @ffprobe-installer (made executable when npm did not run their
 * install scripts).
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

/** Where ffmpeg and ffprobe are, when the caller knows. */
export interface FfmpegPaths {
  /** ffmpeg binary; ffprobe is looked for beside it first. */
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
}

/** What PATH and the installer packages offer; looked up once. */
let found: { ffmpeg: string; ffprobe: string } | undefined;

function discovered(): { ffmpeg: string; ffprobe: string } {
  const platform = `${process.platform}-${process.arch}`;
  found ??= {
    ffmpeg:
      onPath('ffmpeg') ||
      bundled('@ffmpeg-installer/ffmpeg', `@ffmpeg-installer/${platform}`, 'ffmpeg') ||
      'ffmpeg',
    ffprobe:
      onPath('ffprobe') ||
      bundled('@ffprobe-installer/ffprobe', `@ffprobe-installer/${platform}`, 'ffprobe') ||
      'ffprobe',
  };
  return found;
}

export function resolveFfmpeg(given: FfmpegPaths = {}): { ffmpeg: string; ffprobe: string } {
  const { ffmpegPath, ffprobePath } = given;
  const besideFfmpeg = ffmpegPath ? join(dirname(ffmpegPath), 'ffprobe') : undefined;
  return {
    ffmpeg: ffmpegPath || discovered().ffmpeg,
    ffprobe:
      ffprobePath ||
      (besideFfmpeg && existsSync(besideFfmpeg) ? besideFfmpeg : undefined) ||
      discovered().ffprobe,
  };
}

/** True when the resolved ffmpeg runs. */
export function ffmpegAvailable(): boolean {
  const { ffmpeg } = resolveFfmpeg();
  return ffmpeg !== 'ffmpeg' && existsSync(ffmpeg);
}

/**
 * The render-replay CLI.
 *   render-replay REPLAY.osr --beatmaps DIR [--skin X.osk|DIR] [--resolution 720p|1080p|4k] [-o out.mp4] ...
 *   render-replay judge REPLAY.osr --beatmaps DIR [--json]
 * Finds the beatmap by the replay's beatmap MD5 among .osu files and .osz archives.
 * Exit codes: 0 done, 1 failure, 2 bad usage.
 */
// first: the canvas library's allocator settings must be in the environment before it loads
import '../render/canvas-allocator.js';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BeatmapLibrary } from '../beatmap/beatmap-library.js';
import { parseBeatmap } from '../beatmap/parse-beatmap.js';
import { judgeReplay } from '../judgement/judge-replay.js';
import { decodeReplay } from '../replay/decode-replay.js';
import { modsToString } from '../replay/mods.js';
import { defaultRenderOptions, renderReplay } from '../render/render-replay.js';
import { extractOsk } from '../skin/extract-osk.js';

const USAGE = `usage:
  render-replay REPLAY.osr --beatmaps DIR [-o out.mp4] [--thumbnail out.jpg] [--skin X.osk|DIR]
                [--resolution 720p|1080p|4k] [--bg-dim 0.95] [--music-volume 0-100] [--hitsound-volume 0-100] [--no-motion-blur] [--no-storyboard] [--video]
                [--no-snaking-in] [--no-snaking-out] [--no-hit-error-meter] [--no-key-overlay]
                [--intro-dim 0] [--break-dim 0.3] [--no-hp-bar] [--no-unstable-rate] [--hit-counter]
                [--no-pp-counter] [--no-results-screen] [--hit-lighting] [--cursor-size 0.5-2]
                [--skin-colours] [--beatmap-skin]
                [--width N --height N] [--fps N] [--quiet]
  render-replay judge REPLAY.osr --beatmaps DIR [--json]`;

export async function main(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        beatmaps: { type: 'string', multiple: true },
        output: { type: 'string', short: 'o' },
        thumbnail: { type: 'string' },
        skin: { type: 'string' },
        resolution: { type: 'string' },
        'bg-dim': { type: 'string' },
        'music-volume': { type: 'string' },
        'hitsound-volume': { type: 'string' },
        'no-motion-blur': { type: 'boolean' },
        'no-storyboard': { type: 'boolean' },
        video: { type: 'boolean' },
        'no-snaking-in': { type: 'boolean' },
        'no-snaking-out': { type: 'boolean' },
        'no-hit-error-meter': { type: 'boolean' },
        'no-key-overlay': { type: 'boolean' },
        'intro-dim': { type: 'string' },
        'break-dim': { type: 'string' },
        'no-hp-bar': { type: 'boolean' },
        'no-unstable-rate': { type: 'boolean' },
        'hit-counter': { type: 'boolean' },
        'no-pp-counter': { type: 'boolean' },
        'no-results-screen': { type: 'boolean' },
        'hit-lighting': { type: 'boolean' },
        'cursor-size': { type: 'string' },
        'skin-colours': { type: 'boolean' },
        'beatmap-skin': { type: 'boolean' },
        width: { type: 'string' },
        height: { type: 'string' },
        fps: { type: 'string' },
        json: { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    err.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  if (v.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  const judge = positionals[0] === 'judge';
  const replayPath = judge ? positionals[1] : positionals[0];
  if (!replayPath || !v.beatmaps?.length) {
    err.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const replay = decodeReplay(await readFile(replayPath));
    const found = await new BeatmapLibrary(v.beatmaps).findByMd5(replay.beatmapMd5);
    if (!found) {
      err.write(`no beatmap with MD5 ${replay.beatmapMd5} in ${v.beatmaps.join(', ')}\n`);
      return 1;
    }
    if (judge) {
      const j = judgeReplay(replay, parseBeatmap(await readFile(found.osuPath, 'utf8')));
      const computed = {
        n300: j.n300,
        n100: j.n100,
        n50: j.n50,
        misses: j.misses,
        maxCombo: j.maxCombo,
        unstableRate: Math.round(j.unstableRate * 100) / 100,
      };
      const header = {
        n300: replay.n300,
        n100: replay.n100,
        n50: replay.n50,
        misses: replay.misses,
        maxCombo: replay.maxCombo,
      };
      if (v.json) out.write(`${JSON.stringify({ computed, header })}\n`);
      else {
        out.write(`${replay.playerName} on ${found.osuPath} (${modsToString(replay.mods)})\n`);
        out.write(`            300   100    50  miss  combo\n`);
        const row = (name: string, r: typeof header): string =>
          `${name.padEnd(10)}${[r.n300, r.n100, r.n50, r.misses, r.maxCombo].map((n) => String(n).padStart(6)).join('')}\n`;
        out.write(row('computed', computed));
        out.write(row('header', header));
        out.write(`unstable rate ${computed.unstableRate}\n`);
      }
      return 0;
    }
    let skinDir: string | undefined;
    let tempSkin: string | undefined;
    if (v.skin) {
      if ((await stat(v.skin)).isDirectory()) skinDir = v.skin;
      else {
        tempSkin = await mkdtemp(join(tmpdir(), 'render-replay-skin-'));
        skinDir = await extractOsk(v.skin, tempSkin);
      }
    }
    const output = v.output ?? replayPath.replace(/\.osr$/i, '') + '.mp4';
    const thumbnail = v.thumbnail ?? output.replace(/\.mp4$/i, '') + '.jpg';
    const resolution = v.resolution ?? '1080p';
    if (resolution !== '720p' && resolution !== '1080p' && resolution !== '4k') {
      err.write('--resolution must be 720p, 1080p or 4k\n');
      return 2;
    }
    const num = (s: string | undefined): number | undefined =>
      s === undefined ? undefined : Number(s);
    const started = Date.now();
    try {
      const r = await renderReplay({
        replay,
        beatmapPath: found.osuPath,
        skinDir,
        outputVideoPath: output,
        outputThumbnailPath: thumbnail,
        // The command line is where this package meets the environment.
        ffmpeg: { ffmpegPath: process.env.FFMPEG_PATH, ffprobePath: process.env.FFPROBE_PATH },
        options: {
          resolution,
          bgDim: num(v['bg-dim']) ?? defaultRenderOptions.bgDim,
          motionBlur: !v['no-motion-blur'],
          storyboard: !v['no-storyboard'],
          video: !!v.video,
          snakingIn: !v['no-snaking-in'],
          snakingOut: !v['no-snaking-out'],
          hitErrorMeter: !v['no-hit-error-meter'],
          keyOverlay: !v['no-key-overlay'],
          introBgDim: num(v['intro-dim']),
          breakBgDim: num(v['break-dim']),
          hpBar: !v['no-hp-bar'],
          unstableRate: !v['no-unstable-rate'],
          hitCounter: !!v['hit-counter'],
          ppCounter: !v['no-pp-counter'],
          resultsScreen: !v['no-results-screen'],
          hitLighting: !!v['hit-lighting'],
          cursorSize: num(v['cursor-size']),
          useBeatmapColours: !v['skin-colours'],
          useBeatmapSkin: !!v['beatmap-skin'],
          width: num(v.width),
          height: num(v.height),
          fps: num(v.fps),
          musicVolume: num(v['music-volume']),
          hitsoundVolume: num(v['hitsound-volume']),
        },
        onProgress: v.quiet
          ? undefined
          : (p) =>
              err.write(
                `\r[${'#'.repeat(Math.floor(p / 4)).padEnd(25, '.')}] ${String(p).padStart(3)}% ${((Date.now() - started) / 1000).toFixed(0)}s`,
              ),
        log: v.quiet ? undefined : (line) => err.write(`\r\x1b[K${line}\n`),
      });
      if (!v.quiet) err.write('\n');
      out.write(
        `${output} (${r.width}x${r.height}, ${r.durationSeconds.toFixed(2)} s), thumbnail ${thumbnail}\n`,
      );
    } finally {
      if (tempSkin) await rm(tempSkin, { recursive: true, force: true });
    }
    return 0;
  } catch (e) {
    err.write(`render-replay: ${(e as Error).message}\n`);
    return 1;
  }
}

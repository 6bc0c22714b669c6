/**
 * Everything a frame needs, prepared once: the beatmap as played (mods, stacking),
 * the judgement, the cursor track, the skin's sprites at screen size, the dimmed
 * background, the storyboard and the time span the video covers (intro skipped as
 * the game's skip button does, ending shortly after the last object).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createCanvas, GlobalFonts, type Canvas } from '@napi-rs/canvas';
import { fileIn } from '../beatmap/beatmap-file.js';
import { beatmapMd5 } from '../beatmap/beatmap-md5.js';
import { BeatmapParseError, parseBeatmap } from '../beatmap/parse-beatmap.js';
import { preparePlayable } from '../beatmap/playable.js';
import { parseStoryboardFile } from '../beatmap/storyboard.js';
import type { Beatmap } from '../beatmap/types.js';
import { loadBoundedImage } from '../image/bounded-image.js';
import { ppTimeline } from '../difficulty/pp-timeline.js';
import { failOf, judgementUntil } from '../judgement/fail.js';
import { gradeOf } from '../judgement/grade.js';
import { judgePlayable } from '../judgement/judge-replay.js';
import type { JudgementResult } from '../judgement/types.js';
import { Mods, modsToString } from '../replay/mods.js';
import type { Replay } from '../replay/types.js';
import { loadSkin, overlayBeatmapSkin } from '../skin/load-skin.js';
import { CursorTrack } from './cursor-track.js';
import { DimSchedule } from './dim-schedule.js';
import { buildFailLabel, buildResultsPanel } from './draw/results-panel.js';
import { FAIL_FADE_MS, type DrawOptions, type Scene } from './frame-drawer.js';
import { buildSprites } from './sprites.js';
import { StoryboardPlayer } from './storyboard-player.js';

export interface PrepareArgs {
  replay: Replay;
  beatmapPath: string;
  skinDir: string | undefined;
  width: number;
  height: number;
  fps: number;
  storyboard: boolean;
  draw: DrawOptions;
  log: (line: string) => void;
}

export interface PreparedRender {
  scene: Scene;
  beatmap: Beatmap;
  judgement: JudgementResult;
  /** Map time of the first frame. */
  startTime: number;
  /** Map time after the last frame. */
  endTime: number;
  frames: number;
  durationSeconds: number;
  speed: number;
  folder: string;
}

/** Size of the flashlight's hole below 100 combo, from 100, from 200. */
export const FLASHLIGHT_STAGES = [1, 0.875, 0.75] as const;

/** Leaves a little lead-in before the first object, like the skip button. */
const LEAD_IN_MS = 1500;
const TAIL_MS = 2000;
/** How long the results screen stays (real-time ms), as danser's default. */
const RESULTS_MS = 5000;
/** Largest .osu / .osb read (the biggest real storyboards are a few MB). */
const MAX_TEXT_BYTES = 32 << 20;

export async function prepareScene(args: PrepareArgs): Promise<PreparedRender> {
  const { replay, width: W, height: H, log } = args;
  if ((await stat(args.beatmapPath)).size > MAX_TEXT_BYTES)
    throw new BeatmapParseError(`the beatmap file is larger than ${MAX_TEXT_BYTES >> 20} MB`);
  const osuBytes = await readFile(args.beatmapPath);
  const beatmap = parseBeatmap(osuBytes.toString('utf8'));
  if (beatmapMd5(osuBytes) !== replay.beatmapMd5)
    log(
      `warning: the beatmap's MD5 is not the one the replay was played on (${replay.beatmapMd5})`,
    );
  const folder = dirname(args.beatmapPath);
  const play = preparePlayable(beatmap, replay.mods);
  if (play.objects.length === 0) throw new Error('the beatmap has no hit objects');
  const played = judgePlayable(replay, play);
  const fail = failOf(played, replay.mods, replay.lifeBarPoints);
  const judgement = fail ? judgementUntil(played, fail.time, play.speed) : played;
  if (fail) log(`the play fails at ${Math.round(fail.time)} ms (${fail.reason})`);
  const first = play.objects[0]!;
  const lastEnd = play.objects.reduce((m, o) => Math.max(m, o.endTime), -Infinity);
  const speed = play.speed;
  const startTime = first.time - play.preempt - LEAD_IN_MS * speed;
  // a replay that stops early (a fail, a quit) ends the video there
  const lastFrame = replay.frames.reduce((m, f) => Math.max(m, f.time), -Infinity);
  let endTime = Math.min(lastEnd, Math.max(lastFrame, first.time)) + TAIL_MS * speed;
  if (fail) endTime = Math.min(endTime, fail.time + FAIL_FADE_MS * speed);
  // the game shows the ranking panel only after a play that reached its end
  const resultsAt = !fail && args.draw.resultsScreen && lastFrame >= lastEnd ? endTime : undefined;
  if (resultsAt !== undefined) endTime += RESULTS_MS * speed;
  const durationSeconds = (endTime - startTime) / speed / 1000;
  const frames = Math.max(1, Math.ceil(durationSeconds * args.fps));

  const skin = await loadSkin(args.skinDir, log);
  if (args.draw.useBeatmapSkin) await overlayBeatmapSkin(skin, folder, log);
  const radius = play.radius;
  const s = (H * 0.8) / 384;
  const sprites = buildSprites({
    skin,
    circleD: 2 * radius * s,
    screenH: H,
    // the map's colours win over the skin's unless the render asks for the skin's
    beatmapColours: args.draw.useBeatmapColours ? beatmap.comboColours : [],
    sliderBorder: args.draw.useBeatmapColours ? beatmap.sliderBorder : undefined,
    sliderTrack: args.draw.useBeatmapColours ? beatmap.sliderTrackOverride : undefined,
    cursorSize: args.draw.cursorSize,
  });

  const background = createCanvas(W, H);
  const bctx = background.getContext('2d');
  bctx.fillStyle = 'black';
  bctx.fillRect(0, 0, W, H);
  let hasImage = false;
  const bgPath = await fileIn(folder, beatmap.backgroundFilename);
  if (bgPath) {
    try {
      const img = await loadBoundedImage(await readFile(bgPath), 'background');
      const k = Math.max(W / img.width, H / img.height);
      bctx.drawImage(
        img,
        (W - img.width * k) / 2,
        (H - img.height * k) / 2,
        img.width * k,
        img.height * k,
      );
      hasImage = true;
      log(`background ${beatmap.backgroundFilename}`);
    } catch {
      log(`background ${beatmap.backgroundFilename} could not be decoded; black background`);
    }
  } else log('no background image: black background');
  const dim = new DimSchedule(
    args.draw.bgDim,
    args.draw.introBgDim,
    args.draw.breakBgDim,
    first.time - play.preempt,
    beatmap.events.breaks,
    speed,
  );
  const dimmedBackgrounds = new Map<number, Canvas>();
  for (const level of dim.levels()) {
    const dimmed = createCanvas(W, H);
    const dctx = dimmed.getContext('2d');
    dctx.drawImage(background, 0, 0);
    dctx.fillStyle = `rgba(0,0,0,${level})`;
    dctx.fillRect(0, 0, W, H);
    dimmedBackgrounds.set(level, dimmed);
  }
  // without an image, or at full dim, the background is plain black: filled, not blitted
  const blackLevels = new Set(dim.levels().filter((level) => !hasImage || level >= 1));
  const dimmed = dimmedBackgrounds.get(args.draw.bgDim)!;

  let storyboard: StoryboardPlayer | undefined;
  if (args.storyboard) {
    const elements = [...beatmap.events.storyboard];
    try {
      for (const f of await readdir(folder)) {
        if (!f.toLowerCase().endsWith('.osb')) continue;
        const path = join(folder, f);
        if ((await stat(path)).size > MAX_TEXT_BYTES) {
          log(`storyboard ${f} is larger than ${MAX_TEXT_BYTES >> 20} MB: skipped`);
          continue;
        }
        elements.push(...parseStoryboardFile(await readFile(path, 'utf8')));
      }
    } catch {
      // no folder listing: no .osb
    }
    if (elements.length) {
      const player = await StoryboardPlayer.load(elements, folder, log);
      if (player.size > 0) storyboard = player;
    }
  }

  // flashlight: one mask per combo stage (the hole shrinks at 100 and 200 combo), drawn
  // at its size around the cursor; the rest of the screen is filled black
  const flashlight =
    (replay.mods & Mods.Flashlight) !== 0
      ? FLASHLIGHT_STAGES.map((k) => {
          const r = H * 0.32 * k;
          const outer = Math.ceil(r * 1.2);
          const mask = createCanvas(outer * 2, outer * 2);
          const f = mask.getContext('2d');
          const g = f.createRadialGradient(outer, outer, r * 0.7, outer, outer, r * 1.2);
          g.addColorStop(0, 'rgba(0,0,0,0)');
          g.addColorStop(1, 'rgba(0,0,0,1)');
          f.fillStyle = g;
          f.fillRect(0, 0, outer * 2, outer * 2);
          return mask;
        })
      : undefined;

  // the PP of the play as it goes (counter and results screen); ~0.1 s for a long map
  const ppByEvent =
    args.draw.ppCounter || resultsAt !== undefined ? ppTimeline(play, judgement) : undefined;
  const finalPp = ppByEvent && ppByEvent.length > 0 ? ppByEvent[ppByEvent.length - 1] : undefined;
  const titleLines = [
    `${beatmap.metadata.artist} - ${beatmap.metadata.title} [${beatmap.metadata.version}]`,
    `played by ${replay.playerName}${replay.mods ? ` +${modsToString(replay.mods)}` : ''}, mapped by ${beatmap.metadata.creator}`,
  ];
  const modsLabel = replay.mods
    ? infoBanner(W, H, [modsToString(replay.mods)], 'right')
    : undefined;
  const scene: Scene = {
    banner: infoBanner(W, H, titleLines),
    modsLabel,
    results:
      resultsAt === undefined
        ? undefined
        : {
            at: resultsAt,
            panel: buildResultsPanel({
              width: W,
              height: H,
              sprites,
              judgement,
              grade: gradeOf(judgement, replay.mods),
              lines: titleLines,
              modsLabel,
              pp: finalPp,
            }),
          },
    fail: fail ? { at: fail.time, label: buildFailLabel(H) } : undefined,
    width: W,
    height: H,
    play,
    judgement,
    cursor: new CursorTrack(replay.frames),
    sprites,
    dimmedBackground: dimmed,
    dimmedBackgrounds,
    blackLevels,
    dim,
    background,
    storyboard,
    options: args.draw,
    lifeBar: replay.lifeBarPoints,
    ppByEvent,
    songStart: first.time,
    songEnd: lastEnd,
    flashlight,
  };
  return { scene, beatmap, judgement, startTime, endTime, frames, durationSeconds, speed, folder };
}

/** Text drawn once into a canvas (undefined when the machine has no font at all). */
function infoBanner(
  W: number,
  H: number,
  lines: string[],
  align: 'left' | 'right' = 'left',
): Canvas | undefined {
  if (GlobalFonts.families.length === 0) return undefined;
  const size = Math.round(H * 0.024);
  const c = createCanvas(Math.round(W * 0.6), Math.round(size * 1.5 * lines.length + size * 0.6));
  const ctx = c.getContext('2d');
  ctx.font = `${size}px sans-serif`;
  ctx.textBaseline = 'top';
  ctx.textAlign = align;
  ctx.fillStyle = 'white';
  ctx.shadowColor = 'rgba(0,0,0,0.8)';
  ctx.shadowBlur = size * 0.3;
  lines.forEach((line, i) =>
    ctx.fillText(
      line,
      align === 'left' ? size * 0.3 : c.width - size * 0.3,
      size * 0.3 + i * size * 1.5,
      c.width - size,
    ),
  );
  return c;
}

/**
 * Skin loader: reads `skin.ini` ([General], [Colours], [Fonts]) and the images a play
 * uses from an extracted skin folder, preferring `@2x` variants (half scale), with the
 * frames of animated elements (`hit100-0`, `hit100-1`, ..., `sliderb0`, `sliderb1`, ...).
 * File names are matched case-insensitively. Missing images are simply absent: the
 * renderer draws its built-in default for them. A beatmap's own skin images can be laid
 * over the skin (`overlayBeatmapSkin`). Decoded images are bounded each (bounded-image)
 * and in all (SKIN_PIXEL_BUDGET).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Image } from '@napi-rs/canvas';
import { ImageRejectedError, loadBoundedImage } from '../image/bounded-image.js';

export interface SkinImage {
  image: Image;
  /** 1 for a standard image, 0.5 for an @2x one: multiply pixel sizes by this. */
  scale: number;
}

export interface SkinIni {
  name: string;
  author: string;
  comboColours: [number, number, number][];
  sliderBorder: [number, number, number] | undefined;
  sliderTrackOverride: [number, number, number] | undefined;
  sliderBall: [number, number, number] | undefined;
  cursorRotate: boolean;
  cursorExpand: boolean;
  /** The cursor image's centre is the pointer (else its top-left corner). */
  cursorCentre: boolean;
  hitCircleOverlayAboveNumber: boolean;
  allowSliderBallTint: boolean;
  /** Frames per second of animations; -1 (the default) plays each over one second. */
  animationFramerate: number;
  hitCirclePrefix: string;
  hitCircleOverlap: number;
  scorePrefix: string;
  scoreOverlap: number;
  comboPrefix: string;
  comboOverlap: number;
}

export interface Skin {
  ini: SkinIni;
  images: Map<string, SkinImage>;
  get(name: string): SkinImage | undefined;
  /** An animation's frames (`name-0`, `name-1`, ...; `sliderb0`, ...), else [name], else []. */
  frames(name: string): SkinImage[];
}

/** Elements the game animates from numbered frames, and the most frames read of each. */
const ANIMATED = [
  'hit0',
  'hit50',
  'hit100',
  'hit300',
  'sliderfollowcircle',
  'followpoint',
  'sliderb',
];
const MAX_FRAMES = 60;
/** Decoded pixels of a whole skin (4 bytes each: 800 MB); past it images are left out. */
const SKIN_PIXEL_BUDGET = 200_000_000;

/** File name of frame `i` of an animated element (the slider ball has no dash). */
function frameName(name: string, i: number): string {
  return name === 'sliderb' ? `sliderb${i}` : `${name}-${i}`;
}

const WANTED = [
  'hitcircle',
  'hitcircleoverlay',
  'approachcircle',
  'sliderstartcircle',
  'sliderstartcircleoverlay',
  'cursor',
  'cursortrail',
  'cursormiddle',
  'sliderb',
  'sliderb0',
  'sliderfollowcircle',
  'sliderfollowcircle-0',
  'reversearrow',
  'sliderscorepoint',
  'spinner-circle',
  'spinner-approachcircle',
  'spinner-background',
  'spinner-top',
  'spinner-bottom',
  'spinner-middle',
  'spinner-middle2',
  'spinner-clear',
  'spinner-spin',
  'hit0',
  'hit0-0',
  'hit50',
  'hit50-0',
  'hit100',
  'hit100-0',
  'hit300',
  'hit300-0',
  'inputoverlay-key',
  'inputoverlay-background',
  'followpoint',
  'lighting',
];

export const defaultIni = (): SkinIni => ({
  name: 'Default',
  author: '',
  comboColours: [],
  sliderBorder: undefined,
  sliderTrackOverride: undefined,
  sliderBall: undefined,
  cursorRotate: true,
  cursorExpand: true,
  cursorCentre: true,
  hitCircleOverlayAboveNumber: true,
  allowSliderBallTint: false,
  animationFramerate: -1,
  hitCirclePrefix: 'default',
  hitCircleOverlap: -2,
  scorePrefix: 'score',
  scoreOverlap: 0,
  comboPrefix: 'score',
  comboOverlap: 0,
});

export function parseSkinIni(text: string): SkinIni {
  const ini = defaultIni();
  let section = '';
  const rgb = (v: string): [number, number, number] | undefined => {
    const c = v.split(',').map((x) => Number(x.trim()));
    return c.length >= 3 && c.slice(0, 3).every(Number.isFinite)
      ? [c[0]!, c[1]!, c[2]!]
      : undefined;
  };
  const combos: [number, [number, number, number]][] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (!line) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      section = line.slice(1, -1).toLowerCase();
      continue;
    }
    const i = line.indexOf(':');
    if (i < 0) continue;
    const key = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    const bool = value === '1' || value.toLowerCase() === 'true';
    if (section === 'general') {
      if (key === 'Name') ini.name = value;
      else if (key === 'Author') ini.author = value;
      else if (key === 'CursorRotate') ini.cursorRotate = bool;
      else if (key === 'CursorExpand') ini.cursorExpand = bool;
      else if (key === 'CursorCentre') ini.cursorCentre = bool;
      else if (key === 'HitCircleOverlayAboveNumber' || key === 'HitCircleOverlayAboveNumer')
        ini.hitCircleOverlayAboveNumber = bool;
      else if (key === 'AllowSliderBallTint') ini.allowSliderBallTint = bool;
      else if (key === 'AnimationFramerate') {
        const fps = Number(value);
        ini.animationFramerate = Number.isFinite(fps) && fps > 0 ? Math.min(fps, 240) : -1;
      }
    } else if (section === 'colours') {
      const m = /^Combo(\d)$/.exec(key);
      const c = rgb(value);
      if (m && c) combos.push([Number(m[1]), c]);
      else if (key === 'SliderBorder') ini.sliderBorder = c;
      else if (key === 'SliderTrackOverride') ini.sliderTrackOverride = c;
      else if (key === 'SliderBall') ini.sliderBall = c;
    } else if (section === 'fonts') {
      if (key === 'HitCirclePrefix') ini.hitCirclePrefix = value.replace(/\\/g, '/');
      else if (key === 'HitCircleOverlap') ini.hitCircleOverlap = Number(value) || 0;
      else if (key === 'ScorePrefix') ini.scorePrefix = value.replace(/\\/g, '/');
      else if (key === 'ScoreOverlap') ini.scoreOverlap = Number(value) || 0;
      else if (key === 'ComboPrefix') ini.comboPrefix = value.replace(/\\/g, '/');
      else if (key === 'ComboOverlap') ini.comboOverlap = Number(value) || 0;
    }
  }
  ini.comboColours = combos.sort((a, b) => a[0] - b[0]).map((c) => c[1]);
  return ini;
}

/** An empty skin: everything falls back to the built-in default. */
export function emptySkin(): Skin {
  const images = new Map<string, SkinImage>();
  const get = (n: string): SkinImage | undefined => images.get(n.toLowerCase());
  return {
    ini: defaultIni(),
    images,
    get,
    frames: (name) => {
      const frames: SkinImage[] = [];
      for (let i = 0; i < MAX_FRAMES; i++) {
        const f = get(frameName(name, i));
        if (!f) break;
        frames.push(f);
      }
      if (frames.length > 0) return frames;
      const single = get(name);
      return single ? [single] : [];
    },
  };
}

async function listFiles(
  dir: string,
  prefix = '',
  depth = 0,
  out = new Map<string, string>(),
): Promise<Map<string, string>> {
  if (depth > 2) return out;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) await listFiles(join(dir, entry.name), `${rel}/`, depth + 1, out);
    else out.set(rel.toLowerCase(), join(dir, entry.name));
  }
  return out;
}

export async function loadSkin(
  dir: string | undefined,
  log?: (line: string) => void,
): Promise<Skin> {
  const skin = emptySkin();
  if (!dir) return skin;
  let files: Map<string, string>;
  try {
    files = await listFiles(dir);
  } catch {
    log?.(`skin folder ${dir} not readable; using the default skin`);
    return skin;
  }
  const iniPath = files.get('skin.ini');
  if (iniPath) skin.ini = parseSkinIni(await readFile(iniPath, 'utf8'));
  await readImages(skin, files, wantedNames(skin.ini), log);
  log?.(`skin "${skin.ini.name}": ${skin.images.size} images`);
  return skin;
}

/**
 * Lays a beatmap folder's own skin images over `skin` (option use_beatmap_skin): only
 * the images a play uses, found in that folder; the skin's skin.ini stays.
 */
export async function overlayBeatmapSkin(
  skin: Skin,
  folder: string,
  log?: (line: string) => void,
): Promise<number> {
  let files: Map<string, string>;
  try {
    files = await listFiles(folder, '', 2);
  } catch {
    return 0;
  }
  const overlay = emptySkin();
  await readImages(overlay, files, wantedNames(skin.ini), log);
  // an animation in the beatmap replaces the skin's frames as a whole
  for (const name of ANIMATED)
    if (overlay.frames(name).length > 0)
      for (let i = 0; i < MAX_FRAMES; i++) skin.images.delete(frameName(name, i));
  for (const [name, image] of overlay.images) skin.images.set(name, image);
  if (overlay.images.size > 0)
    log?.(`beatmap skin: ${overlay.images.size} images from the beatmap's folder`);
  return overlay.images.size;
}

function wantedNames(ini: SkinIni): Set<string> {
  const wanted = new Set(WANTED);
  for (const name of ANIMATED) for (let i = 0; i < MAX_FRAMES; i++) wanted.add(frameName(name, i));
  for (const prefix of [ini.hitCirclePrefix, ini.scorePrefix, ini.comboPrefix]) {
    for (const c of [
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      'comma',
      'dot',
      'percent',
      'x',
    ])
      wanted.add(`${prefix}-${c}`.toLowerCase());
  }
  return wanted;
}

async function readImages(
  skin: Skin,
  files: Map<string, string>,
  wanted: Set<string>,
  log: ((line: string) => void) | undefined,
): Promise<void> {
  let pixels = 0;
  for (const name of wanted) {
    const hd = files.get(`${name}@2x.png`);
    const sd = files.get(`${name}.png`);
    const path = hd ?? sd;
    if (!path) continue;
    try {
      if (pixels >= SKIN_PIXEL_BUDGET) {
        log?.(
          `skin image ${name} left out: the skin's images exceed ${SKIN_PIXEL_BUDGET / 1e6} megapixels`,
        );
        continue;
      }
      const image = await loadBoundedImage(await readFile(path), `skin image ${name}`);
      pixels += image.width * image.height;
      if (image.width > 0 && image.height > 0)
        skin.images.set(name, { image, scale: hd ? 0.5 : 1 });
    } catch (err) {
      log?.(
        err instanceof ImageRejectedError
          ? `${err.message}; using the default`
          : `skin image ${name} could not be decoded; using the default`,
      );
    }
  }
}

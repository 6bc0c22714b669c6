/**
 * Evaluates storyboard sprites and animations at a time: loops expanded, each property
 * (fade, move, scale, vector scale, rotate, colour, flips, additive) interpolated with
 * its easing, and draws them in storyboard space (640x480, widescreen-centred).
 * Colour commands tint the image (tinted copies cached, colours quantised to 32 levels).
 */
import { createCanvas, type Canvas, type Image, type SKRSContext2D } from '@napi-rs/canvas';
import { readFile } from 'node:fs/promises';
import { pathInFolder } from '../beatmap/beatmap-file.js';
import type { StoryboardCommand, StoryboardElement } from '../beatmap/types.js';
import { loadBoundedImage } from '../image/bounded-image.js';

/** A command with its loop expanded: loops and triggers are gone. */
type Flat = Omit<StoryboardCommand, 'loopCount' | 'children'>;

interface Prepared {
  el: StoryboardElement;
  frames: Image[];
  start: number;
  end: number;
  byType: Map<string, Flat[]>;
}

/** Decoded storyboard images in all (~1.2 GB of RGBA); past it, sprites are left out. */
const MAX_STORYBOARD_PIXELS = 300_000_000;
/** Commands of one sprite once loops are unrolled (a crafted loop of loops stops here). */
const MAX_COMMANDS_PER_ELEMENT = 100_000;
/** Commands of the whole storyboard once unrolled; later sprites are left out. */
const MAX_COMMANDS = 2_000_000;

const ORIGINS: Record<string, [number, number]> = {
  TopLeft: [0, 0],
  TopCentre: [0.5, 0],
  TopRight: [1, 0],
  CentreLeft: [0, 0.5],
  Centre: [0.5, 0.5],
  CentreRight: [1, 0.5],
  BottomLeft: [0, 1],
  BottomCentre: [0.5, 1],
  BottomRight: [1, 1],
  Custom: [0, 0],
};

export function ease(e: number, t: number): number {
  switch (e) {
    case 1:
    case 4:
      return 1 - (1 - t) * (1 - t);
    case 2:
    case 3:
      return t * t;
    case 5:
      return t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
    case 6:
      return t ** 3;
    case 7:
      return 1 - (1 - t) ** 3;
    case 8:
      return t < 0.5 ? 4 * t ** 3 : 1 - (-2 * t + 2) ** 3 / 2;
    case 15:
      return 1 - Math.cos((t * Math.PI) / 2);
    case 16:
      return Math.sin((t * Math.PI) / 2);
    case 17:
      return -(Math.cos(Math.PI * t) - 1) / 2;
    default:
      return t;
  }
}

function flatten(commands: StoryboardCommand[]): Flat[] {
  const out: Flat[] = [];
  for (const c of commands) {
    if (out.length >= MAX_COMMANDS_PER_ELEMENT) break;
    if (c.type === 'T') continue; // triggers need game events: not played
    if (c.type === 'L') {
      const span = c.children.reduce((m, k) => Math.max(m, k.end), 0);
      const count = Math.min(c.loopCount, 10000);
      for (let i = 0; i < count && out.length < MAX_COMMANDS_PER_ELEMENT; i++) {
        for (const k of c.children) {
          if (k.type === 'L' || k.type === 'T') continue;
          out.push({
            type: k.type,
            easing: k.easing,
            start: c.start + i * span + k.start,
            end: c.start + i * span + k.end,
            params: k.params,
            flag: k.flag,
          });
        }
      }
    } else
      out.push({
        type: c.type,
        easing: c.easing,
        start: c.start,
        end: c.end,
        params: c.params,
        flag: c.flag,
      });
  }
  return out.sort((a, b) => a.start - b.start);
}

function value(list: Flat[] | undefined, t: number, index: number, def: number): number {
  if (!list || list.length === 0) return def;
  const arity = list[0]!.params.length / 2;
  let current = list[0]!;
  if (t < current.start) return current.params[index] ?? def;
  // the last command started at or before t (the list is sorted by start)
  let lo = 0;
  let hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (list[mid]!.start <= t) lo = mid;
    else hi = mid - 1;
  }
  current = list[lo]!;
  if (t >= current.end) return current.params[arity + index] ?? current.params[index] ?? def;
  const p =
    current.end > current.start
      ? ease(current.easing, (t - current.start) / (current.end - current.start))
      : 1;
  const a = current.params[index] ?? def;
  const b = current.params[arity + index] ?? a;
  return a + (b - a) * p;
}

export class StoryboardPlayer {
  private readonly tints = new Map<Image, Map<number, Canvas>>();

  private constructor(private readonly items: Prepared[]) {}

  /** The image multiplied by a colour, cached per image and quantised colour. */
  private tinted(img: Image, r: number, g: number, b: number): Canvas {
    const q = (v: number): number => Math.max(0, Math.min(31, Math.round(v / 8.2)));
    const key = (q(r) << 10) | (q(g) << 5) | q(b);
    let perImage = this.tints.get(img);
    if (!perImage) this.tints.set(img, (perImage = new Map()));
    let c = perImage.get(key);
    if (!c) {
      if (perImage.size > 256) perImage.clear();
      c = createCanvas(Math.max(1, img.width), Math.max(1, img.height));
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      ctx.globalCompositeOperation = 'multiply';
      ctx.fillStyle = `rgb(${q(r) * 8.2},${q(g) * 8.2},${q(b) * 8.2})`;
      ctx.fillRect(0, 0, c.width, c.height);
      ctx.globalCompositeOperation = 'destination-in';
      ctx.drawImage(img, 0, 0);
      perImage.set(key, c);
    }
    return c;
  }

  get size(): number {
    return this.items.length;
  }

  static async load(
    elements: StoryboardElement[],
    folder: string,
    log?: (l: string) => void,
  ): Promise<StoryboardPlayer> {
    const cache = new Map<string, Image | undefined>();
    let decodedPixels = 0;
    let budgetLogged = false;
    const image = async (file: string): Promise<Image | undefined> => {
      if (cache.has(file)) return cache.get(file);
      let img: Image | undefined;
      const path = pathInFolder(folder, file);
      try {
        if (path && decodedPixels < MAX_STORYBOARD_PIXELS) {
          img = await loadBoundedImage(await readFile(path), `storyboard image ${file}`);
          decodedPixels += img.width * img.height;
        } else if (path && !budgetLogged) {
          budgetLogged = true;
          log?.(`storyboard images past ${MAX_STORYBOARD_PIXELS / 1e6} megapixels are left out`);
        }
      } catch (err) {
        if (err instanceof Error && err.name === 'ImageRejectedError') log?.(err.message);
        img = undefined;
      }
      cache.set(file, img);
      return img;
    };
    const items: Prepared[] = [];
    let commandCount = 0;
    for (const el of elements.slice(0, 20000)) {
      const cmds = flatten(el.commands);
      if (cmds.length === 0) continue;
      commandCount += cmds.length;
      if (commandCount > MAX_COMMANDS) {
        log?.(`storyboard past ${MAX_COMMANDS} commands: the remaining sprites are left out`);
        break;
      }
      const frames: Image[] = [];
      if (el.kind === 'animation') {
        const dot = el.file.lastIndexOf('.');
        for (let i = 0; i < Math.min(el.frameCount, 500); i++) {
          const img = await image(`${el.file.slice(0, dot)}${i}${el.file.slice(dot)}`);
          if (img) frames.push(img);
        }
      } else {
        const img = await image(el.file);
        if (img) frames.push(img);
      }
      if (frames.length === 0) continue;
      const byType = new Map<string, Flat[]>();
      for (const c of cmds) {
        const list = byType.get(c.type);
        if (list) list.push(c);
        else byType.set(c.type, [c]);
      }
      items.push({
        el,
        frames,
        start: cmds.reduce((m, c) => Math.min(m, c.start), Infinity),
        end: cmds.reduce((m, c) => Math.max(m, c.end), -Infinity),
        byType,
      });
    }
    log?.(`storyboard: ${items.length} drawable elements (${cache.size} images)`);
    return new StoryboardPlayer(items);
  }

  /** Draws the elements of `layers` alive at `t` (map time). */
  draw(ctx: SKRSContext2D, t: number, layers: Set<string>, width: number, height: number): void {
    const scale = height / 480;
    const ox = (width - 640 * scale) / 2;
    for (const it of this.items) {
      if (t < it.start || t > it.end || !layers.has(it.el.layer)) continue;
      const alpha = value(it.byType.get('F'), t, 0, 1);
      if (alpha <= 0.001) continue;
      const m = it.byType.get('M');
      let x = value(m, t, 0, it.el.x);
      let y = value(m, t, 1, it.el.y);
      if (it.byType.has('MX')) x = value(it.byType.get('MX'), t, 0, x);
      if (it.byType.has('MY')) y = value(it.byType.get('MY'), t, 0, y);
      const s = value(it.byType.get('S'), t, 0, 1);
      let sx = s * value(it.byType.get('V'), t, 0, 1);
      let sy = s * value(it.byType.get('V'), t, 1, 1);
      const rot = value(it.byType.get('R'), t, 0, 0);
      let additive = false;
      for (const p of it.byType.get('P') ?? []) {
        const active = (t >= p.start && t <= p.end) || p.start === p.end;
        if (!active) continue;
        if (p.flag === 'H') sx = -sx;
        else if (p.flag === 'V') sy = -sy;
        else if (p.flag === 'A') additive = true;
      }
      let frame = 0;
      if (it.frames.length > 1 && it.el.frameDelay > 0) {
        const n = Math.floor((t - it.start) / it.el.frameDelay);
        frame = it.el.loopForever ? n % it.frames.length : Math.min(n, it.frames.length - 1);
      }
      let img: Image | Canvas = it.frames[frame]!;
      const c = it.byType.get('C');
      if (c) {
        const r = value(c, t, 0, 255);
        const g = value(c, t, 1, 255);
        const b = value(c, t, 2, 255);
        if (r < 250 || g < 250 || b < 250) img = this.tinted(img as Image, r, g, b);
      }
      const [oxf, oyf] = ORIGINS[it.el.origin] ?? [0.5, 0.5];
      ctx.save();
      ctx.globalAlpha = Math.min(1, alpha);
      if (additive) ctx.globalCompositeOperation = 'lighter';
      ctx.translate(ox + x * scale, y * scale);
      if (rot) ctx.rotate(rot);
      ctx.scale(sx * scale, sy * scale);
      ctx.drawImage(img, -oxf * img.width, -oyf * img.height);
      ctx.restore();
    }
  }
}

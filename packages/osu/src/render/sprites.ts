/**
 * Builds every sprite a frame needs, once, at its final screen size: from the skin's
 * images where it has them (tinted by combo colour like the game does), else drawn by
 * our own default skin. Frames then only blit these with an alpha and a scale.
 */
import { createCanvas, type Canvas, type Image } from '@napi-rs/canvas';
import type { Skin, SkinImage } from '../skin/load-skin.js';
import { makeVectorFont, type Font, type Glyph } from './vector-font.js';

export type Rgb = [number, number, number];

export interface Sprites {
  /** Screen diameter of a hit circle. */
  circleD: number;
  circles: Canvas[];
  sliderStarts: Canvas[];
  /**
   * The skin's circle overlays when they go above the combo number
   * (HitCircleOverlayAboveNumber, the default); otherwise they are part of `circles`.
   */
  circleOverlay: Canvas | undefined;
  sliderStartOverlay: Canvas | undefined;
  approach: Canvas[];
  numbers: Font;
  cursor: Canvas;
  cursorTrail: Canvas;
  cursorMiddle: Canvas | undefined;
  /** skin.ini: the cursor turns, grows while a key is down, is centred on the pointer. */
  cursorRotate: boolean;
  cursorExpand: boolean;
  cursorCentre: boolean;
  /** Slider ball frames, per combo colour. */
  sliderBall: Canvas[][];
  followCircle: Canvas[];
  reverseArrow: Canvas;
  tick: Canvas;
  /** Judgement frames by result (one frame unless the skin animates them). */
  judgements: Map<number, Canvas[]>;
  /** The skin's follow point (frames), drawn along the direction of play; else dots. */
  followPoint: Canvas[] | undefined;
  /** Hit lighting per combo colour: the skin's `lighting` tinted, else a soft glow. */
  lighting: Canvas[];
  /** Frames per second of skin animations; -1 plays each over one second. */
  animationFramerate: number;
  /** 300s are drawn only when the skin has its own image for them (the default hides them). */
  show300: boolean;
  spinnerCircle: Canvas;
  spinnerApproach: Canvas;
  /** A skin's spinner parts at screen scale (absent: not drawn). */
  spinner: SpinnerParts;
  /** A skin's key overlay: the key (plain, and tinted as pressed K1/K2 and M1/M2) and its background. */
  inputOverlay: { key: Canvas; keyK: Canvas; keyM: Canvas; background?: Canvas } | undefined;
  scoreFont: Font;
  comboFont: Font;
  smallFont: Font;
  keyFont: Font;
  comboColours: Rgb[];
  sliderBorder: string;
  sliderTrack: (colour: Rgb) => string;
}

export interface SpinnerParts {
  /** Old style: a background, the metre filling from the bottom. */
  background?: Canvas;
  metre?: Canvas;
  /** New style: bottom and top turn, middle reddens as the spinner fills. */
  bottom?: Canvas;
  top?: Canvas;
  middle?: Canvas;
  middleRed?: Canvas;
  middle2?: Canvas;
  /** "Clear!" once enough turns are made, "Spin!" as the spinner starts. */
  clear?: Canvas;
  spin?: Canvas;
}

export const DEFAULT_COMBO: Rgb[] = [
  [255, 192, 0],
  [0, 202, 0],
  [18, 124, 255],
  [242, 24, 57],
];

const css = (c: Rgb, a = 1): string => `rgba(${c[0]},${c[1]},${c[2]},${a})`;

function blank(w: number, h = w): Canvas {
  return createCanvas(Math.max(1, Math.ceil(w)), Math.max(1, Math.ceil(h)));
}

/**
 * Largest side of a sprite: a crafted skin's 16,000-pixel frame, tinted per combo colour
 * and repeated over an animation, would otherwise take gigabytes at screen scale.
 */
const MAX_SPRITE_SIDE = 4096;

/** The skin image scaled so that `sdUnit` standard-definition pixels become `px` screen pixels. */
function scaled(img: SkinImage, pxPerSd: number): Canvas {
  let w = img.image.width * img.scale * pxPerSd;
  let h = img.image.height * img.scale * pxPerSd;
  const cap = Math.min(1, MAX_SPRITE_SIDE / Math.max(w, h));
  w *= cap;
  h *= cap;
  const c = blank(w, h);
  c.getContext('2d').drawImage(img.image as Image, 0, 0, c.width, c.height);
  return c;
}

function tint(src: Canvas, colour: Rgb): Canvas {
  const c = blank(src.width, src.height);
  const ctx = c.getContext('2d');
  ctx.drawImage(src, 0, 0);
  ctx.globalCompositeOperation = 'multiply';
  ctx.fillStyle = css(colour);
  ctx.fillRect(0, 0, c.width, c.height);
  ctx.globalCompositeOperation = 'destination-in';
  ctx.drawImage(src, 0, 0);
  return c;
}

function stack(layers: Canvas[]): Canvas {
  const w = Math.max(...layers.map((l) => l.width));
  const h = Math.max(...layers.map((l) => l.height));
  const c = blank(w, h);
  const ctx = c.getContext('2d');
  for (const l of layers) ctx.drawImage(l, (w - l.width) / 2, (h - l.height) / 2);
  return c;
}

function defaultCircle(d: number, colour: Rgb): Canvas {
  const c = blank(d * 1.04);
  const ctx = c.getContext('2d');
  const m = c.width / 2;
  const g = ctx.createRadialGradient(m, m, 0, m, m, d / 2);
  g.addColorStop(0, css(colour.map((v) => Math.min(255, v + 40)) as Rgb));
  g.addColorStop(1, css(colour.map((v) => v * 0.6) as Rgb));
  ctx.fillStyle = g;
  ctx.beginPath();
  ctx.arc(m, m, d * 0.47, 0, Math.PI * 2);
  ctx.fill();
  ctx.strokeStyle = 'rgba(255,255,255,0.95)';
  ctx.lineWidth = d * 0.07;
  ctx.beginPath();
  ctx.arc(m, m, d * 0.44, 0, Math.PI * 2);
  ctx.stroke();
  ctx.strokeStyle = 'rgba(0,0,0,0.5)';
  ctx.lineWidth = Math.max(1, d * 0.015);
  ctx.beginPath();
  ctx.arc(m, m, d * 0.49, 0, Math.PI * 2);
  ctx.stroke();
  return c;
}

function ring(d: number, width: number, colour: string): Canvas {
  const c = blank(d + width * 2);
  const ctx = c.getContext('2d');
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.beginPath();
  ctx.arc(c.width / 2, c.height / 2, d / 2, 0, Math.PI * 2);
  ctx.stroke();
  return c;
}

function defaultCursor(size: number): Canvas {
  const c = blank(size);
  const ctx = c.getContext('2d');
  const m = c.width / 2;
  ctx.fillStyle = 'rgb(255,210,0)';
  ctx.beginPath();
  ctx.arc(m, m, size * 0.36, 0, Math.PI * 2);
  ctx.fill();
  ctx.strokeStyle = 'rgb(255,255,255)';
  ctx.lineWidth = size * 0.1;
  ctx.beginPath();
  ctx.arc(m, m, size * 0.42, 0, Math.PI * 2);
  ctx.stroke();
  return c;
}

function softDot(size: number, colour: string): Canvas {
  const c = blank(size);
  const ctx = c.getContext('2d');
  const m = c.width / 2;
  const g = ctx.createRadialGradient(m, m, 0, m, m, m);
  g.addColorStop(0, colour);
  g.addColorStop(1, 'rgba(255,200,0,0)');
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, c.width, c.height);
  return c;
}

function defaultArrow(d: number): Canvas {
  const c = blank(d);
  const ctx = c.getContext('2d');
  const m = c.width / 2;
  ctx.strokeStyle = 'white';
  ctx.lineWidth = d * 0.09;
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.beginPath();
  ctx.moveTo(m - d * 0.12, m - d * 0.22);
  ctx.lineTo(m + d * 0.14, m);
  ctx.lineTo(m - d * 0.12, m + d * 0.22);
  ctx.stroke();
  return c;
}

function defaultSpinner(d: number): Canvas {
  const c = blank(d);
  const ctx = c.getContext('2d');
  const m = c.width / 2;
  ctx.strokeStyle = 'rgba(255,255,255,0.85)';
  for (const [r, w] of [
    [0.48, 0.012],
    [0.3, 0.008],
  ] as const) {
    ctx.lineWidth = d * w;
    ctx.beginPath();
    ctx.arc(m, m, d * r, 0, Math.PI * 2);
    ctx.stroke();
  }
  ctx.lineWidth = d * 0.02;
  ctx.lineCap = 'round';
  for (let i = 0; i < 4; i++) {
    const a = (i * Math.PI) / 2;
    ctx.beginPath();
    ctx.moveTo(m + Math.cos(a) * d * 0.32, m + Math.sin(a) * d * 0.32);
    ctx.lineTo(m + Math.cos(a) * d * 0.46, m + Math.sin(a) * d * 0.46);
    ctx.stroke();
  }
  ctx.fillStyle = 'rgba(255,255,255,0.9)';
  ctx.beginPath();
  ctx.arc(m, m, d * 0.03, 0, Math.PI * 2);
  ctx.fill();
  return c;
}

function textSprite(font: Font, text: string): Canvas {
  let w = 0;
  for (const ch of text) w += font.glyphs.get(ch)?.advance ?? 0;
  const first = font.glyphs.get(text[0]!)!;
  const c = blank(w + first.ox * 2, font.height + first.oy * 2);
  const ctx = c.getContext('2d');
  let x = 0;
  for (const ch of text) {
    const g = font.glyphs.get(ch)!;
    ctx.drawImage(g.canvas, x, 0);
    x += g.advance;
  }
  return c;
}

/** A font from skin images `${prefix}-0` ... scaled to `height` pixels. */
function skinFont(skin: Skin, prefix: string, height: number, overlap: number): Font | undefined {
  const zero = skin.get(`${prefix}-0`);
  if (!zero) return undefined;
  const pxPerSd = height / (zero.image.height * zero.scale);
  const glyphs = new Map<string, Glyph>();
  const names: Record<string, string> = { ',': 'comma', '.': 'dot', '%': 'percent', x: 'x' };
  for (const ch of '0123456789,.%x') {
    const img = skin.get(`${prefix}-${names[ch] ?? ch}`);
    if (!img) continue;
    const canvas = scaled(img, pxPerSd);
    glyphs.set(ch, { canvas, ox: 0, oy: 0, advance: canvas.width - overlap * pxPerSd });
  }
  return { height, glyphs };
}

export function buildSprites(opts: {
  skin: Skin;
  circleD: number;
  screenH: number;
  beatmapColours: Rgb[];
  sliderBorder: Rgb | undefined;
  sliderTrack: Rgb | undefined;
  /** Cursor scale (render option cursor_size). @defaultValue 1 */
  cursorSize?: number;
}): Sprites {
  const { skin, circleD, screenH } = opts;
  const ini = skin.ini;
  const comboColours = opts.beatmapColours.length
    ? opts.beatmapColours
    : ini.comboColours.length
      ? ini.comboColours
      : DEFAULT_COMBO;
  const pxPerSd = circleD / 128; // hit circle images are 128 SD pixels across
  const hudPx = screenH / 768;
  const get = (...names: string[]): SkinImage | undefined => {
    for (const n of names) {
      const img = skin.get(n);
      if (img) return img;
    }
    return undefined;
  };

  const hc = get('hitcircle');
  const hco = hc ? get('hitcircleoverlay') : undefined;
  const above = ini.hitCircleOverlayAboveNumber;
  const circleOverlay = hco && above ? scaled(hco, pxPerSd) : undefined;
  const circles = comboColours.map((col) => {
    if (!hc) return defaultCircle(circleD, col);
    const layers = [tint(scaled(hc, pxPerSd), col)];
    if (hco && !above) layers.push(scaled(hco, pxPerSd));
    return stack(layers);
  });
  const ssc = get('sliderstartcircle');
  const ssco = ssc ? get('sliderstartcircleoverlay') : undefined;
  const sliderStarts = ssc
    ? comboColours.map((col) =>
        stack([
          tint(scaled(ssc, pxPerSd), col),
          ...(ssco && !above ? [scaled(ssco, pxPerSd)] : []),
        ]),
      )
    : circles;
  const sliderStartOverlay = ssc
    ? ssco && above
      ? scaled(ssco, pxPerSd)
      : undefined
    : circleOverlay;
  const ac = get('approachcircle');
  const approach = comboColours.map((col) =>
    ac ? tint(scaled(ac, pxPerSd), col) : ring(circleD * 0.96, circleD * 0.045, css(col)),
  );

  const numbers =
    skinFont(skin, ini.hitCirclePrefix, circleD * 0.32, ini.hitCircleOverlap) ??
    makeVectorFont(Math.round(circleD * 0.34), 'white');

  const cursorSize = opts.cursorSize ?? 1;
  const cursorPx = hudPx * cursorSize;
  const cur = get('cursor');
  const cursor = cur
    ? scaled(cur, cursorPx)
    : defaultCursor(Math.round(screenH * 0.045 * cursorSize));
  const tr = get('cursortrail');
  const cursorTrail = tr
    ? scaled(tr, cursorPx)
    : softDot(Math.round(screenH * 0.03 * cursorSize), 'rgba(255,220,60,0.9)');
  const cm = get('cursormiddle');

  const ballFrames = skin.frames('sliderb');
  const ballTint = ballFrames.length === 0 || ini.allowSliderBallTint;
  const sliderBall = comboColours.map((col) => {
    if (ballFrames.length === 0) return [defaultCircle(circleD * 0.92, ini.sliderBall ?? col)];
    return ballFrames.map((f) => (ballTint ? tint(scaled(f, pxPerSd), col) : scaled(f, pxPerSd)));
  });
  const fcFrames = skin.frames('sliderfollowcircle');
  const followCircle =
    fcFrames.length > 0
      ? fcFrames.map((f) => scaled(f, pxPerSd))
      : [ring(circleD * 2.2, circleD * 0.06, 'rgba(255,170,40,0.9)')];
  const fpFrames = skin.frames('followpoint');
  const followPoint = fpFrames.length > 0 ? fpFrames.map((f) => scaled(f, pxPerSd)) : undefined;
  const li = get('lighting');
  const lighting = [
    li ? scaled(li, pxPerSd) : softDot(Math.round(circleD * 1.6), 'rgba(255,255,255,0.8)'),
  ];
  const ra = get('reversearrow');
  const reverseArrow = ra ? scaled(ra, pxPerSd) : defaultArrow(circleD);
  const sp = get('sliderscorepoint');
  const tick = sp
    ? scaled(sp, pxPerSd)
    : softDot(Math.max(4, Math.round(circleD * 0.16)), 'rgba(255,255,255,1)');

  const judgementFont = (colour: string): Font =>
    makeVectorFont(Math.round(circleD * 0.38), colour);
  const judgements = new Map<number, Canvas[]>();
  const jSpecs: [number, string, string, string][] = [
    [300, 'hit300', 'rgb(80,180,255)', '300'],
    [100, 'hit100', 'rgb(90,230,90)', '100'],
    [50, 'hit50', 'rgb(255,170,40)', '50'],
    [0, 'hit0', 'rgb(255,40,40)', 'X'],
  ];
  for (const [value, name, colour, text] of jSpecs) {
    const frames = skin.frames(name);
    judgements.set(
      value,
      frames.length > 0
        ? frames.map((f) => scaled(f, pxPerSd))
        : [textSprite(judgementFont(colour), text)],
    );
  }

  const spinD = screenH * 0.72;
  const spc = get('spinner-circle');
  const spinnerCircle = spc
    ? scaled(spc, spinD / (spc.image.width * spc.scale))
    : defaultSpinner(spinD);
  // the game lays spinner parts out on a 1024x768 screen
  const part = (name: string): Canvas | undefined => {
    const img = get(name);
    return img ? scaled(img, hudPx) : undefined;
  };
  const spinnerMiddle = part('spinner-middle');
  const spinner: SpinnerParts = {
    background: part('spinner-background'),
    metre: part('spinner-metre'),
    bottom: part('spinner-bottom'),
    top: part('spinner-top'),
    middle: spinnerMiddle,
    middleRed: spinnerMiddle ? tint(spinnerMiddle, [255, 40, 40]) : undefined,
    middle2: part('spinner-middle2'),
    clear: part('spinner-clear'),
    spin: part('spinner-spin'),
  };
  const ik = get('inputoverlay-key');
  const ib = get('inputoverlay-background');
  const inputKey = ik ? scaled(ik, hudPx) : undefined;
  // the game tints pressed keys: yellow for the keyboard, magenta for the mouse
  const inputOverlay = inputKey && {
    key: inputKey,
    keyK: tint(inputKey, [255, 222, 0]),
    keyM: tint(inputKey, [248, 0, 158]),
    background: ib ? scaled(ib, hudPx) : undefined,
  };
  const spa = get('spinner-approachcircle');
  const spinnerApproach = spa
    ? scaled(spa, spinD / (spa.image.width * spa.scale))
    : ring(spinD, screenH * 0.008, 'rgba(255,255,255,0.8)');

  const scoreH = Math.round(screenH * 0.05);
  const scoreFont =
    skinFont(skin, ini.scorePrefix, scoreH, ini.scoreOverlap) ?? makeVectorFont(scoreH, 'white');
  const comboFont =
    skinFont(skin, ini.comboPrefix, Math.round(screenH * 0.06), ini.comboOverlap) ??
    makeVectorFont(Math.round(screenH * 0.06), 'white');
  const smallFont = makeVectorFont(Math.round(screenH * 0.025), 'white');
  const keyFont = makeVectorFont(Math.round(screenH * 0.016), 'white', false);

  const border = ini.sliderBorder ?? opts.sliderBorder ?? [255, 255, 255];
  const trackOverride = opts.sliderTrack ?? ini.sliderTrackOverride;
  return {
    circleD,
    circles,
    sliderStarts,
    circleOverlay,
    sliderStartOverlay,
    approach,
    numbers,
    cursor,
    cursorTrail,
    cursorMiddle: cm ? scaled(cm, cursorPx) : undefined,
    // our own cursor is round: turning it would change nothing
    cursorRotate: ini.cursorRotate && cur !== undefined,
    cursorExpand: ini.cursorExpand,
    cursorCentre: ini.cursorCentre || cur === undefined,
    sliderBall,
    followCircle,
    reverseArrow,
    tick,
    judgements,
    show300: skin.frames('hit300').length > 0,
    followPoint,
    lighting,
    animationFramerate: ini.animationFramerate,
    spinnerCircle,
    spinnerApproach,
    spinner,
    inputOverlay,
    scoreFont,
    comboFont,
    smallFont,
    keyFont,
    comboColours,
    sliderBorder: css(border),
    sliderTrack: (colour) =>
      css(trackOverride ?? (colour.map((v) => Math.round(v * 0.3)) as Rgb), 0.9),
  };
}

/**
 * The frame of an animation `ageMs` after it started: the skin's frame rate, or the whole
 * animation over one second when it sets none (as the game does); held on the last
 * frame unless it loops.
 */
export function frameAt(
  frames: readonly Canvas[],
  ageMs: number,
  fps: number,
  loop: boolean,
): Canvas {
  const n = frames.length;
  if (n <= 1) return frames[0]!;
  const rate = fps > 0 ? fps : n;
  const i = Math.floor((Math.max(0, ageMs) / 1000) * rate);
  return frames[loop ? i % n : Math.min(i, n - 1)]!;
}

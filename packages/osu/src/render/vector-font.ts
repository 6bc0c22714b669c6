/**
 * A small stroked vector font (digits, a few symbols and the letters the HUD needs),
 * so the renderer never depends on a system font. Glyphs are pre-rendered into an
 * atlas per size and colour; drawing text is then one drawImage per character.
 */
import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';

type Stroke = [number, number][];
// coordinates: x 0..1 (scaled by width), y 0..1 (top to bottom)
const A: [number, number] = [0, 0];
const B: [number, number] = [1, 0];
const C: [number, number] = [0, 0.5];
const D: [number, number] = [1, 0.5];
const E: [number, number] = [0, 1];
const F: [number, number] = [1, 1];
const SEG: Record<string, Stroke> = {
  a: [A, B],
  b: [B, D],
  c: [D, F],
  d: [E, F],
  e: [C, E],
  f: [A, C],
  g: [C, D],
};
const seg = (s: string): Stroke[] => [...s].map((k) => SEG[k]!);

const GLYPHS: Record<string, Stroke[]> = {
  '0': seg('abcdef'),
  '1': [
    [
      [0.5, 0],
      [0.5, 1],
    ],
    [
      [0.25, 0.15],
      [0.5, 0],
    ],
  ],
  '2': seg('abged'),
  '3': seg('abgcd'),
  '4': seg('fgbc'),
  '5': seg('afgcd'),
  '6': seg('afgedc'),
  '7': seg('abc'),
  '8': seg('abcdefg'),
  '9': seg('abcdfg'),
  '.': [
    [
      [0.45, 0.95],
      [0.55, 0.95],
    ],
  ],
  ',': [
    [
      [0.5, 0.9],
      [0.4, 1.1],
    ],
  ],
  ':': [
    [
      [0.5, 0.3],
      [0.5, 0.32],
    ],
    [
      [0.5, 0.8],
      [0.5, 0.82],
    ],
  ],
  '-': seg('g'),
  '%': [
    [
      [0, 1],
      [1, 0],
    ],
    [
      [0.1, 0.1],
      [0.3, 0.1],
      [0.3, 0.3],
      [0.1, 0.3],
      [0.1, 0.1],
    ],
    [
      [0.7, 0.7],
      [0.9, 0.7],
      [0.9, 0.9],
      [0.7, 0.9],
      [0.7, 0.7],
    ],
  ],
  x: [
    [
      [0.1, 0.45],
      [0.9, 1],
    ],
    [
      [0.9, 0.45],
      [0.1, 1],
    ],
  ],
  X: [
    [
      [0, 0],
      [1, 1],
    ],
    [
      [1, 0],
      [0, 1],
    ],
  ],
  K: [
    [
      [0, 0],
      [0, 1],
    ],
    [
      [1, 0],
      [0, 0.55],
    ],
    [
      [0.3, 0.4],
      [1, 1],
    ],
  ],
  M: [
    [
      [0, 1],
      [0, 0],
      [0.5, 0.6],
      [1, 0],
      [1, 1],
    ],
  ],
  U: [
    [
      [0, 0],
      [0, 1],
      [1, 1],
      [1, 0],
    ],
  ],
  R: [
    [
      [0, 1],
      [0, 0],
      [1, 0],
      [1, 0.5],
      [0, 0.5],
      [1, 1],
    ],
  ],
  // grades and FAILED, for the results screen and the fail overlay
  S: seg('afgcd'),
  A: seg('abcefg'),
  B: [
    [
      [0, 0],
      [0, 1],
      [0.8, 1],
      [1, 0.75],
      [0.8, 0.5],
      [0, 0.5],
    ],
    [
      [0, 0],
      [0.8, 0],
      [1, 0.25],
      [0.8, 0.5],
    ],
  ],
  C: seg('adef'),
  D: [
    [
      [0, 0],
      [0, 1],
      [0.6, 1],
      [1, 0.65],
      [1, 0.35],
      [0.6, 0],
      [0, 0],
    ],
  ],
  E: seg('adefg'),
  F: seg('aefg'),
  I: [
    [
      [0.5, 0],
      [0.5, 1],
    ],
    [
      [0.2, 0],
      [0.8, 0],
    ],
    [
      [0.2, 1],
      [0.8, 1],
    ],
  ],
  L: seg('def'),
  P: seg('abefg'),
  // lower-case p for "pp": a bowl on the upper part of a stem
  p: [
    [
      [0.05, 0.35],
      [0.05, 1],
    ],
    [
      [0.05, 0.35],
      [0.95, 0.35],
      [0.95, 0.75],
      [0.05, 0.75],
    ],
  ],
  ' ': [],
};

export interface Glyph {
  canvas: Canvas;
  /** Where the glyph's box starts inside its canvas (padding for the stroke). */
  ox: number;
  oy: number;
  advance: number;
}

/** A bitmap font: the vector font below, or a skin's score/combo/hit-circle digits. */
export interface Font {
  height: number;
  glyphs: Map<string, Glyph>;
}

export function makeVectorFont(height: number, color: string, outline = true): Font {
  const width = Math.round(height * 0.55);
  const line = Math.max(1.5, height * 0.13);
  const pad = Math.ceil(line * 1.5);
  const glyphs = new Map<string, Glyph>();
  for (const [ch, strokes] of Object.entries(GLYPHS)) {
    const c = createCanvas(width + pad * 2, height + pad * 2);
    const ctx = c.getContext('2d');
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    const path = (): void => {
      ctx.beginPath();
      for (const s of strokes) {
        s.forEach(([x, y], i) => {
          const px = pad + x * width;
          const py = pad + y * height;
          if (i === 0) ctx.moveTo(px, py);
          else ctx.lineTo(px, py);
        });
      }
    };
    if (outline) {
      path();
      ctx.strokeStyle = 'rgba(0,0,0,0.7)';
      ctx.lineWidth = line + Math.max(2, height * 0.08);
      ctx.stroke();
    }
    path();
    ctx.strokeStyle = color;
    ctx.lineWidth = line;
    ctx.stroke();
    const narrow = ch === '.' || ch === ',' || ch === ':' || ch === '1' || ch === ' ';
    glyphs.set(ch, {
      canvas: c,
      ox: pad,
      oy: pad,
      advance: narrow ? width * 0.6 + line : width + line * 1.6,
    });
  }
  return { height, glyphs };
}

/** Width of `text` in pixels. */
export function textWidth(font: Font, text: string): number {
  let w = 0;
  for (const ch of text) w += font.glyphs.get(ch)?.advance ?? font.height * 0.5;
  return w;
}

/** Draws `text` with its top at `y`; `align` positions it relative to `x`. */
export function drawText(
  ctx: SKRSContext2D,
  font: Font,
  text: string,
  x: number,
  y: number,
  align: 'left' | 'right' | 'center' = 'left',
): void {
  const w = textWidth(font, text);
  let cx = align === 'left' ? x : align === 'right' ? x - w : x - w / 2;
  for (const ch of text) {
    const g = font.glyphs.get(ch);
    if (g) {
      const narrowShift = (g.advance - (g.canvas.width - 2 * g.ox)) / 2;
      ctx.drawImage(
        g.canvas,
        Math.round(cx - g.ox + Math.min(0, narrowShift)),
        Math.round(y - g.oy),
      );
    }
    cx += g?.advance ?? font.height * 0.5;
  }
}

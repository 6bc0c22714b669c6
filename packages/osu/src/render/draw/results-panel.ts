/**
 * The results screen shown after the play (the game's ranking panel): score, the
 * judgement sprites with their counts, max combo, accuracy, the grade and the mods, over
 * the dimmed background. Everything on it is final, so it is drawn once into a canvas
 * and the frames only fade it in. Titles use the system font where there is one (as the
 * intro banner); numbers and the grade use the skin's fonts or the vector font.
 */
import { createCanvas, GlobalFonts, type Canvas } from '@napi-rs/canvas';
import type { Grade } from '../../judgement/grade.js';
import type { JudgementSummary } from '../../judgement/types.js';
import type { Sprites } from '../sprites.js';
import { drawText, makeVectorFont, textWidth } from '../vector-font.js';
import { drawCentred } from './draw-centred.js';

export interface ResultsPanelArgs {
  width: number;
  height: number;
  sprites: Sprites;
  judgement: JudgementSummary;
  grade: Grade;
  /** "Artist - Title [Version]", "Played by ..." */
  lines: string[];
  modsLabel: Canvas | undefined;
  /** Performance points of the play, when known. */
  pp?: number;
}

/** Grade letters and colours as the game shows them (silver for XH/SH). */
const GRADE_LOOK: Record<Grade, [string, string]> = {
  XH: ['SS', 'rgb(220,225,235)'],
  X: ['SS', 'rgb(255,214,80)'],
  SH: ['S', 'rgb(220,225,235)'],
  S: ['S', 'rgb(255,214,80)'],
  A: ['A', 'rgb(120,220,80)'],
  B: ['B', 'rgb(80,150,255)'],
  C: ['C', 'rgb(200,90,230)'],
  D: ['D', 'rgb(235,70,70)'],
};

export function buildResultsPanel(a: ResultsPanelArgs): Canvas {
  const { width: W, height: H, sprites: sp, judgement: j } = a;
  const c = createCanvas(W, H);
  const ctx = c.getContext('2d');
  ctx.fillStyle = 'rgba(0,0,0,0.55)';
  ctx.fillRect(0, 0, W, H);
  const pad = H * 0.03;

  // header: title and player
  ctx.fillStyle = 'rgba(0,0,0,0.6)';
  ctx.fillRect(0, 0, W, H * 0.13);
  if (GlobalFonts.families.length > 0) {
    ctx.fillStyle = 'white';
    ctx.textBaseline = 'top';
    a.lines.forEach((line, i) => {
      const size = Math.round(H * (i === 0 ? 0.034 : 0.024));
      ctx.font = `${size}px sans-serif`;
      ctx.fillText(line, pad, pad * 0.6 + i * H * 0.048, W - 2 * pad);
    });
  }

  // score
  const scoreFont = sp.scoreFont;
  const left = W * 0.06;
  let y = H * 0.17;
  drawText(ctx, scoreFont, String(j.score).padStart(8, '0'), left, y, 'left');
  y += scoreFont.height * 1.6;

  // counts: the judgement sprite, then "123x"
  const rowH = H * 0.1;
  const countFont = sp.comboFont;
  const cells: [300 | 100 | 50 | 0, number][] = [
    [300, j.n300],
    [100, j.n100],
    [50, j.n50],
    [0, j.misses],
  ];
  cells.forEach(([kind, count], i) => {
    const cx = left + (i % 2) * W * 0.22;
    const cy = y + Math.floor(i / 2) * rowH;
    const sprite = sp.judgements.get(kind)?.[0];
    const size = rowH * 0.8;
    if (sprite) {
      const k = Math.min(1, size / Math.max(sprite.width, sprite.height));
      drawCentred(ctx, sprite, cx + size / 2, cy + rowH * 0.4, k);
    }
    drawText(ctx, countFont, `${count}x`, cx + size * 1.2, cy + rowH * 0.4 - countFont.height / 2);
  });
  y += rowH * 2 + H * 0.03;

  // max combo and accuracy, with small labels when a font is there
  const label = (text: string, x: number): void => {
    if (GlobalFonts.families.length === 0) return;
    ctx.fillStyle = 'rgba(255,255,255,0.7)';
    ctx.font = `${Math.round(H * 0.022)}px sans-serif`;
    ctx.textBaseline = 'top';
    ctx.fillText(text, x, y);
  };
  label('Max combo', left);
  label('Accuracy', left + W * 0.22);
  const valueY = y + H * 0.032;
  drawText(ctx, countFont, `${j.maxCombo}x`, left, valueY);
  drawText(ctx, countFont, `${(j.accuracy * 100).toFixed(2)}%`, left + W * 0.22, valueY);

  if (a.pp !== undefined) {
    const ppY = valueY + countFont.height + H * 0.04;
    drawText(ctx, countFont, `${Math.round(a.pp)}pp`, left, ppY);
  }

  // grade, large, right of the counts
  const [letters, colour] = GRADE_LOOK[a.grade];
  const gradeFont = makeVectorFont(Math.round(H * 0.36), colour);
  const gx = W * 0.74;
  const gy = H * 0.24;
  drawText(ctx, gradeFont, letters, gx, gy, 'center');
  if (a.modsLabel)
    ctx.drawImage(a.modsLabel, W - a.modsLabel.width - pad, gy + gradeFont.height + pad);
  return c;
}

/** "FAILED" in red, drawn once for the fail overlay. */
export function buildFailLabel(height: number): Canvas {
  const font = makeVectorFont(Math.round(height * 0.12), 'rgb(235,60,60)');
  const text = 'FAILED';
  const c = createCanvas(
    Math.ceil(textWidth(font, text) + font.height),
    Math.ceil(font.height * 1.6),
  );
  drawText(c.getContext('2d'), font, text, c.width / 2, font.height * 0.3, 'center');
  return c;
}

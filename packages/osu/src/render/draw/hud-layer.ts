/**
 * The HUD at a map time: score, accuracy, combo, song progress, mods, the intro
 * banner, key overlay, hit error meter, and the overlays the render options ask for
 * (hit counter, unstable rate, HP bar).
 */
import type { SKRSContext2D } from '@napi-rs/canvas';
import { CursorTrack } from '../cursor-track.js';
import type { Scene } from '../frame-drawer.js';
import { drawText, textWidth } from '../vector-font.js';
import { drawCentred } from './draw-centred.js';
import { drawHpBar } from './hp-bar.js';
import type { HudState, JudgementTimeline } from './judgement-timeline.js';

/** The game's judgement colours (100 green, 50 orange, miss red) and a blue for slider breaks. */
const HIT_COLOURS = { 100: 'rgb(87,227,19)', 50: 'rgb(218,174,70)', 0: 'rgb(230,50,50)' } as const;
const SLIDER_BREAK_COLOUR = 'rgb(60,140,255)';

export class HudLayer {
  constructor(
    private readonly scene: Scene,
    private readonly timeline: JudgementTimeline,
  ) {}

  draw(ctx: SKRSContext2D, t: number): void {
    const sc = this.scene;
    const sp = sc.sprites;
    const { width: W, height: H } = sc;
    const st = this.timeline.stateAt(t);
    const pad = H * 0.012;
    drawText(ctx, sp.scoreFont, String(st.score).padStart(8, '0'), W - pad, pad, 'right');
    drawText(
      ctx,
      sp.smallFont,
      `${(st.accuracy * 100).toFixed(2)}%`,
      W - pad,
      pad * 2 + sp.scoreFont.height,
      'right',
    );
    if (st.combo > 0)
      drawText(ctx, sp.comboFont, `${st.combo}x`, pad * 1.5, H - pad - sp.comboFont.height, 'left');

    // song progress
    const p = Math.min(1, Math.max(0, (t - sc.songStart) / Math.max(1, sc.songEnd - sc.songStart)));
    ctx.fillStyle = 'rgba(255,255,255,0.15)';
    ctx.fillRect(0, H - H * 0.006, W, H * 0.006);
    ctx.fillStyle = 'rgba(255,255,255,0.75)';
    ctx.fillRect(0, H - H * 0.006, W * p, H * 0.006);

    let belowAccuracy = pad * 3 + sp.scoreFont.height + sp.smallFont.height;
    if (sc.options.ppCounter && sc.ppByEvent) {
      drawText(ctx, sp.smallFont, `${Math.round(st.pp)}pp`, W - pad, belowAccuracy, 'right');
      belowAccuracy += sp.smallFont.height + pad;
    }
    if (sc.modsLabel) ctx.drawImage(sc.modsLabel, W - sc.modsLabel.width, belowAccuracy);
    const hpBar = sc.options.hpBar && sc.lifeBar.length > 0;
    if (hpBar) drawHpBar(ctx, sc.lifeBar, t, pad, pad, W * 0.36, H * 0.014);
    if (sc.banner && sc.introStart !== undefined) {
      const age = (t - sc.introStart) / sc.play.speed;
      if (age < 5000) {
        ctx.globalAlpha = age < 4000 ? 1 : 1 - (age - 4000) / 1000;
        ctx.drawImage(sc.banner, pad, hpBar ? pad * 2 + H * 0.014 : pad);
        ctx.globalAlpha = 1;
      }
    }
    if (sc.options.keyOverlay) this.drawKeys(ctx, t);
    if (sc.options.hitErrorMeter) this.drawHitErrors(ctx, t);
    if (sc.options.unstableRate && st.unstableRate > 0) {
      const y = H - H * 0.035 - H * 0.012 * 1.5 - pad - sp.smallFont.height;
      drawText(ctx, sp.smallFont, `${st.unstableRate.toFixed(2)}UR`, W / 2, y, 'center');
    }
    if (sc.options.hitCounter) this.drawHitCounter(ctx, st);
  }

  /** 100s, 50s, misses and slider breaks, each by a swatch of its colour, right of the playfield. */
  private drawHitCounter(ctx: SKRSContext2D, st: HudState): void {
    const sc = this.scene;
    const { width: W, height: H } = sc;
    const font = sc.sprites.smallFont;
    const row = font.height * 1.3;
    const swatch = font.height * 0.7;
    const right = W - H * 0.012;
    let y = H / 2 + H * 0.045 * 2.6;
    const rows: [string, number][] = [
      [HIT_COLOURS[100], st.n100],
      [HIT_COLOURS[50], st.n50],
      [HIT_COLOURS[0], st.misses],
      [SLIDER_BREAK_COLOUR, st.sliderBreaks],
    ];
    for (const [colour, count] of rows) {
      const text = String(count);
      const textW = textWidth(font, text);
      ctx.fillStyle = colour;
      ctx.fillRect(right - textW - swatch * 1.6, y + (font.height - swatch) / 2, swatch, swatch);
      drawText(ctx, font, text, right, y, 'right');
      y += row;
    }
  }

  private drawKeys(ctx: SKRSContext2D, t: number): void {
    const sc = this.scene;
    const { width: W, height: H } = sc;
    const size = H * 0.045;
    const x = W - size * 1.3;
    const y0 = H / 2 - size * 2.3;
    const i = sc.cursor.indexAt(t);
    const keys = i >= 0 ? sc.cursor.keys[i]! : 0;
    const pressed = CursorTrack.split(keys);
    const labels = ['K1', 'K2', 'M1', 'M2'];
    const skinned = sc.sprites.inputOverlay;
    if (skinned?.background) {
      // the game's background image lies horizontally; the keys stand in a column
      const bg = skinned.background;
      ctx.save();
      ctx.translate(x + size / 2, y0 + (size * 4 * 1.15) / 2);
      ctx.rotate(Math.PI / 2);
      ctx.drawImage(bg, -bg.width / 2, -bg.height / 2);
      ctx.restore();
    }
    for (let k = 0; k < 4; k++) {
      const y = y0 + k * size * 1.15;
      if (skinned) {
        const img = !pressed[k] ? skinned.key : k < 2 ? skinned.keyK : skinned.keyM;
        // a pressed key shrinks a little, as in the game
        const scale = (size / Math.max(img.width, img.height)) * (pressed[k] ? 0.85 : 1);
        drawCentred(ctx, img, x + size / 2, y + size / 2, scale);
      } else {
        ctx.fillStyle = pressed[k] ? 'rgba(255,200,60,0.95)' : 'rgba(40,40,40,0.7)';
        ctx.fillRect(x, y, size, size);
        ctx.strokeStyle = 'rgba(255,255,255,0.8)';
        ctx.lineWidth = Math.max(1, H * 0.002);
        ctx.strokeRect(x, y, size, size);
      }
      const count = i >= 0 ? sc.cursor.counts[i * 4 + k]! : 0;
      drawText(
        ctx,
        sc.sprites.keyFont,
        count > 0 ? String(count) : labels[k]!,
        x + size / 2,
        y + size / 2 - sc.sprites.keyFont.height / 2,
        'center',
      );
    }
  }

  private drawHitErrors(ctx: SKRSContext2D, t: number): void {
    const sc = this.scene;
    const { play, judgement } = sc;
    const { width: W, height: H } = sc;
    const scale = (H * 0.00045 * 512) / play.hit50 / 2; // px per ms
    const cx = W / 2;
    const y = H - H * 0.035;
    const h = H * 0.012;
    ctx.globalAlpha = 0.8;
    ctx.fillStyle = 'rgb(218,174,70)';
    ctx.fillRect(cx - play.hit50 * scale, y - h / 2, play.hit50 * 2 * scale, h);
    ctx.fillStyle = 'rgb(87,227,19)';
    ctx.fillRect(cx - play.hit100 * scale, y - h / 2, play.hit100 * 2 * scale, h);
    ctx.fillStyle = 'rgb(50,188,231)';
    ctx.fillRect(cx - play.hit300 * scale, y - h / 2, play.hit300 * 2 * scale, h);
    ctx.globalAlpha = 1;
    ctx.fillStyle = 'white';
    ctx.fillRect(cx - 1, y - h * 1.5, 2, h * 3);
    const times = judgement.hitErrorTimes;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! < t - 10000) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < times.length && times[i]! <= t; i++) {
      const err = judgement.hitErrors[i]!;
      const age = (t - times[i]!) / 10000;
      ctx.globalAlpha = Math.max(0, 1 - age);
      const a = Math.abs(err);
      ctx.fillStyle =
        a < play.hit300
          ? 'rgb(120,220,255)'
          : a < play.hit100
            ? 'rgb(140,255,90)'
            : 'rgb(255,200,90)';
      ctx.fillRect(cx + err * scale - 1, y - h * 1.4, Math.max(2, H * 0.0015), h * 2.8);
    }
    ctx.globalAlpha = 1;
  }
}

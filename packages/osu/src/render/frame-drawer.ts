/**
 * Draws one frame of a play at a map time: background (dimmed), storyboard, beatmap
 * video, hit circles, approach circles, combo numbers, sliders (snaking in and out,
 * ticks, reverse arrows, ball and follow circle), spinners, judgements, flashlight,
 * HUD (score, accuracy, combo, song progress, key overlay, hit error meter) and the
 * cursor with its trail. All sprites are prepared beforehand; nothing here loads.
 */
import type { Canvas, ImageData, SKRSContext2D } from '@napi-rs/canvas';
import { sliderPositionAt, type PlayableBeatmap, type PlayObject } from '../beatmap/playable.js';
import type { JudgementResult } from '../judgement/types.js';
import { Mods } from '../replay/mods.js';
import { CursorTrack } from './cursor-track.js';
import type { Sprites } from './sprites.js';
import type { StoryboardPlayer } from './storyboard-player.js';
import { drawText } from './vector-font.js';

export interface DrawOptions {
  bgDim: number;
  snakingIn: boolean;
  snakingOut: boolean;
  hitErrorMeter: boolean;
  keyOverlay: boolean;
}

export interface Scene {
  width: number;
  height: number;
  play: PlayableBeatmap;
  judgement: JudgementResult;
  cursor: CursorTrack;
  sprites: Sprites;
  /** Background already dimmed (used when there is no storyboard or video). */
  dimmedBackground: Canvas;
  /** Background not dimmed (under storyboard / video). */
  background: Canvas;
  storyboard: StoryboardPlayer | undefined;
  options: DrawOptions;
  /** Map time span the song-progress bar covers. */
  songStart: number;
  songEnd: number;
  /** Flashlight mask (twice the screen, a hole in the middle), when FL is on. */
  flashlight: Canvas | undefined;
  /** Title and player, shown over the first seconds. */
  banner: Canvas | undefined;
  /** The mods, under the accuracy. */
  modsLabel: Canvas | undefined;
  /** Map time of the first frame (the banner fades out from there). */
  introStart?: number;
}

const LOWER_LAYERS = new Set(['Background', 'Fail', 'Pass', 'Foreground']);
const OVERLAY_LAYER = new Set(['Overlay']);

/** Where the 512x384 playfield sits on a width x height screen: screen = origin + osu * scale. */
export function playfieldTransform(
  width: number,
  height: number,
): { scale: number; x: number; y: number } {
  const scale = (height * 0.8) / 384;
  return { scale, x: (width - 512 * scale) / 2, y: (height - 384 * scale) / 2 + height * 0.02 };
}

export class FrameDrawer {
  private readonly s: number;
  private readonly ox: number;
  private readonly oy: number;
  private readonly hidden: boolean;
  private readonly paths = new Map<number, Float32Array>();
  private readonly pos = { x: 0, y: 0 };
  private readonly pos2 = { x: 0, y: 0 };
  private lo = 0;

  constructor(private readonly scene: Scene) {
    const { width: W, height: H } = scene;
    const tr = playfieldTransform(W, H);
    this.s = tr.scale;
    this.ox = tr.x;
    this.oy = tr.y;
    this.hidden = (scene.play.mods & Mods.Hidden) !== 0;
  }

  draw(ctx: SKRSContext2D, t: number, video?: ImageData): void {
    const sc = this.scene;
    ctx.globalAlpha = 1;
    ctx.globalCompositeOperation = 'source-over';
    if (video || sc.storyboard) {
      if (video) ctx.putImageData(video, 0, 0);
      else ctx.drawImage(sc.background, 0, 0);
      sc.storyboard?.draw(ctx, t, LOWER_LAYERS, sc.width, sc.height);
      if (sc.options.bgDim > 0) {
        ctx.fillStyle = `rgba(0,0,0,${sc.options.bgDim})`;
        ctx.fillRect(0, 0, sc.width, sc.height);
      }
    } else ctx.drawImage(sc.dimmedBackground, 0, 0);

    this.drawObjects(ctx, t);
    this.drawJudgements(ctx, t);
    if (sc.storyboard) sc.storyboard.draw(ctx, t, OVERLAY_LAYER, sc.width, sc.height);
    const cur = sc.cursor.positionAt(t, this.pos);
    const cx = this.ox + cur.x * this.s;
    const cy = this.oy + cur.y * this.s;
    if (sc.flashlight) this.drawFlashlight(ctx, t, cx, cy);
    this.drawHud(ctx, t);
    this.drawCursor(ctx, t, cx, cy);
  }

  private drawObjects(ctx: SKRSContext2D, t: number): void {
    const objs = this.scene.play.objects;
    const preempt = this.scene.play.preempt;
    while (this.lo < objs.length && objs[this.lo]!.endTime + 1000 < t) this.lo++;
    let hi = this.lo;
    while (hi < objs.length && objs[hi]!.time - preempt <= t) hi++;
    this.drawFollowPoints(ctx, t, hi);
    for (let i = hi - 1; i >= this.lo; i--) {
      const o = objs[i]!;
      if (o.endTime + 1000 < t) continue;
      if (o.kind === 'slider') this.drawSlider(ctx, o, t);
      else if (o.kind === 'spinner') this.drawSpinner(ctx, o, t);
      else this.drawCircle(ctx, o, t, o.x, o.y, false);
    }
  }

  /** Dots from one object to the next of the same combo, appearing ahead and eaten as the play passes. */
  private drawFollowPoints(ctx: SKRSContext2D, t: number, hi: number): void {
    const objs = this.scene.play.objects;
    const preempt = this.scene.play.preempt;
    const spacing = 32;
    const dot = Math.max(2, this.s * 3);
    ctx.fillStyle = 'rgba(255,255,255,0.6)';
    for (let i = Math.max(1, this.lo); i < hi; i++) {
      const b = objs[i]!;
      const a = objs[i - 1]!;
      if (b.comboNumber <= 1 || a.kind === 'spinner' || b.kind === 'spinner') continue;
      if (t > b.time || t < a.endTime - preempt) continue;
      const dx = b.x - a.endX;
      const dy = b.y - a.endY;
      const len = Math.hypot(dx, dy);
      if (len < spacing * 2.5) continue;
      const span = Math.max(1, b.time - a.endTime);
      for (let d = spacing * 1.5; d < len - spacing; d += spacing) {
        const f = d / len;
        const at = a.endTime + f * span;
        const appear = at - preempt;
        if (t < appear || t > at) continue;
        const alpha = Math.min(1, (t - appear) / 200) * Math.min(1, (at - t) / 100);
        ctx.globalAlpha = alpha;
        ctx.fillRect(
          this.ox + (a.endX + dx * f) * this.s - dot / 2,
          this.oy + (a.endY + dy * f) * this.s - dot / 2,
          dot,
          dot,
        );
      }
    }
    ctx.globalAlpha = 1;
  }

  /** Alpha of an object's body before it is hit (fade in, Hidden fade out). */
  private fadeAlpha(o: PlayObject, t: number): number {
    const { preempt, fadeIn } = this.scene.play;
    const appear = o.time - preempt;
    if (this.hidden) {
      const fin = preempt * 0.4;
      if (t < appear + fin) return Math.max(0, (t - appear) / fin);
      return Math.max(0, 1 - (t - appear - fin) / (preempt * 0.3));
    }
    return Math.min(1, Math.max(0, (t - appear) / fadeIn));
  }

  private drawCircle(
    ctx: SKRSContext2D,
    o: PlayObject,
    t: number,
    x: number,
    y: number,
    sliderHead: boolean,
  ): void {
    const sp = this.scene.sprites;
    const j = this.scene.judgement;
    const colour = o.comboIndex % sp.comboColours.length;
    const judgedAt = j.headJudgedAt[o.index]!;
    const hit = j.headHit[o.index]!;
    const sx = this.ox + x * this.s;
    const sy = this.oy + y * this.s;
    const img = sliderHead ? sp.sliderStarts[colour]! : sp.circles[colour]!;
    if (t >= judgedAt) {
      const age = t - judgedAt;
      if (hit && !this.hidden) {
        const p = age / 240;
        if (p >= 1) return;
        const k = 1 + 0.4 * p;
        ctx.globalAlpha = 1 - p;
        drawCentred(ctx, img, sx, sy, k);
      } else if (!hit) {
        const p = age / 120;
        if (p >= 1) return;
        ctx.globalAlpha = (1 - p) * this.fadeAlpha(o, judgedAt);
        drawCentred(ctx, img, sx, sy);
      }
      ctx.globalAlpha = 1;
      return;
    }
    const alpha = this.fadeAlpha(o, t);
    if (alpha > 0) {
      ctx.globalAlpha = alpha;
      drawCentred(ctx, img, sx, sy);
      const num = String(o.comboNumber);
      drawText(ctx, sp.numbers, num, sx, sy - sp.numbers.height / 2, 'center');
    }
    // approach circle
    if (!this.hidden || o.index === 0) {
      const { preempt, fadeIn } = this.scene.play;
      const appear = o.time - preempt;
      const k = 1 + 3 * Math.max(0, 1 - (t - appear) / preempt);
      const a = Math.min(0.9, Math.max(0, ((t - appear) / fadeIn) * 1.8));
      if (a > 0 && t < o.time) {
        ctx.globalAlpha = a;
        drawCentred(ctx, sp.approach[colour]!, sx, sy, k);
      }
    }
    ctx.globalAlpha = 1;
  }

  private screenPath(o: PlayObject): Float32Array {
    let p = this.paths.get(o.index);
    if (!p) {
      const path = o.path!;
      p = new Float32Array(path.length * 2);
      for (let i = 0; i < path.length; i++) {
        p[i * 2] = this.ox + path[i]!.x * this.s;
        p[i * 2 + 1] = this.oy + path[i]!.y * this.s;
      }
      this.paths.set(o.index, p);
    }
    return p;
  }

  private tracePath(ctx: SKRSContext2D, o: PlayObject, d0: number, d1: number): void {
    const p = this.screenPath(o);
    const cum = o.cumulative!;
    const n = cum.length;
    const at = (d: number, out: { x: number; y: number }): void => {
      let lo = 0;
      let hi = n - 1;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (cum[mid]! <= d) lo = mid;
        else hi = mid;
      }
      const span = cum[hi]! - cum[lo]!;
      const a = span > 0 ? Math.min(1, Math.max(0, (d - cum[lo]!) / span)) : 0;
      out.x = p[lo * 2]! + (p[hi * 2]! - p[lo * 2]!) * a;
      out.y = p[lo * 2 + 1]! + (p[hi * 2 + 1]! - p[lo * 2 + 1]!) * a;
    };
    ctx.beginPath();
    at(d0, this.pos2);
    ctx.moveTo(this.pos2.x, this.pos2.y);
    for (let i = 0; i < n; i++) {
      const c = cum[i]!;
      if (c <= d0) continue;
      if (c >= d1) break;
      ctx.lineTo(p[i * 2]!, p[i * 2 + 1]!);
    }
    at(d1, this.pos2);
    ctx.lineTo(this.pos2.x + 0.01, this.pos2.y);
  }

  private drawSlider(ctx: SKRSContext2D, o: PlayObject, t: number): void {
    const sc = this.scene;
    const sp = sc.sprites;
    const { preempt } = sc.play;
    const colour = o.comboIndex % sp.comboColours.length;
    const appear = o.time - preempt;
    const L = o.pixelLength;
    let alpha = this.hidden
      ? Math.min(
          this.fadeAlpha(o, Math.min(t, o.time - preempt * 0.6)),
          t < o.time ? 1 : Math.max(0, 1 - (t - o.time) / Math.max(1, o.endTime - o.time)),
        )
      : this.fadeAlpha(o, t);
    if (t > o.endTime) alpha *= Math.max(0, 1 - (t - o.endTime) / 200);
    if (this.hidden && t >= o.time - preempt * 0.6)
      alpha = Math.max(
        0,
        Math.min(
          1,
          1 - (t - (o.time - preempt * 0.6)) / Math.max(1, o.endTime - (o.time - preempt * 0.6)),
        ),
      );
    let d0 = 0;
    let d1 = L;
    if (sc.options.snakingIn && t < o.time)
      d1 = L * Math.min(1, Math.max(0, (t - appear) / (preempt / 3)));
    if (sc.options.snakingOut && t >= o.time && o.spanDuration > 0) {
      const span = Math.min(o.slides - 1, Math.floor((t - o.time) / o.spanDuration));
      if (span === o.slides - 1) {
        let prog = Math.min(1, (t - o.time - span * o.spanDuration) / o.spanDuration);
        if (span % 2 === 1) {
          prog = 1 - prog;
          d1 = L * prog;
        } else d0 = L * prog;
      }
    }
    if (alpha > 0.001 && d1 > d0) {
      ctx.globalAlpha = alpha;
      ctx.lineCap = 'round';
      ctx.lineJoin = 'round';
      this.tracePath(ctx, o, d0, d1);
      ctx.strokeStyle = sp.sliderBorder;
      ctx.lineWidth = sp.circleD * 0.9;
      ctx.stroke();
      ctx.strokeStyle = sp.sliderTrack(sp.comboColours[colour]!);
      ctx.lineWidth = sp.circleD * 0.78;
      ctx.stroke();
      ctx.strokeStyle = 'rgba(255,255,255,0.08)';
      ctx.lineWidth = sp.circleD * 0.4;
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
    // ticks and reverse arrows for the current span
    const span =
      t < o.time
        ? 0
        : Math.min(o.slides - 1, Math.floor((t - o.time) / Math.max(1, o.spanDuration)));
    if (t <= o.endTime && alpha > 0.001) {
      ctx.globalAlpha = alpha;
      for (const ev of o.events) {
        if (ev.kind !== 'tick' || ev.span !== span || ev.time <= t) continue;
        drawCentred(ctx, sp.tick, this.ox + ev.x * this.s, this.oy + ev.y * this.s);
      }
      if (span < o.slides - 1 && o.path && o.path.length >= 2) {
        const atEnd = span % 2 === 0;
        const path = o.path;
        const a = atEnd ? path[path.length - 1]! : path[0]!;
        const b = atEnd ? path[Math.max(0, path.length - 3)]! : path[Math.min(path.length - 1, 2)]!;
        const ang = Math.atan2(b.y - a.y, b.x - a.x);
        const pulse = 1 + 0.15 * (1 - (t % 300) / 300);
        ctx.save();
        ctx.translate(this.ox + a.x * this.s, this.oy + a.y * this.s);
        ctx.rotate(ang);
        ctx.scale(pulse, pulse);
        drawCentred(ctx, sp.reverseArrow, 0, 0);
        ctx.restore();
      }
      ctx.globalAlpha = 1;
    }
    // head
    this.drawCircle(ctx, o, t, o.x, o.y, true);
    // ball and follow circle
    if (t >= o.time && t <= o.endTime) {
      const ball = sliderPositionAt(o, t);
      const bx = this.ox + ball.x * this.s;
      const by = this.oy + ball.y * this.s;
      drawCentred(ctx, sp.sliderBall[colour]!, bx, by);
      const cur = sc.cursor.positionAt(t, this.pos2);
      const keys = sc.cursor.keysAt(t);
      if (keys & 15 && Math.hypot(cur.x - ball.x, cur.y - ball.y) <= sc.play.radius * 2.4)
        drawCentred(ctx, sp.followCircle, bx, by);
    }
  }

  private drawSpinner(ctx: SKRSContext2D, o: PlayObject, t: number): void {
    if (t < o.time - 300 || t > o.endTime + 200) return;
    const sp = this.scene.sprites;
    const cx = this.ox + 256 * this.s;
    const cy = this.oy + 192 * this.s;
    const alpha =
      t < o.time ? (t - (o.time - 300)) / 300 : t > o.endTime ? 1 - (t - o.endTime) / 200 : 1;
    const cur = this.scene.cursor.positionAt(t, this.pos2);
    const ang = Math.atan2(cur.y - 192, cur.x - 256);
    ctx.save();
    ctx.globalAlpha = Math.max(0, Math.min(1, alpha));
    ctx.translate(cx, cy);
    ctx.rotate(ang);
    drawCentred(ctx, sp.spinnerCircle, 0, 0);
    ctx.restore();
    if (t >= o.time && t <= o.endTime) {
      const k = Math.max(0.02, 1 - (t - o.time) / Math.max(1, o.endTime - o.time));
      ctx.globalAlpha = alpha;
      drawCentred(ctx, sp.spinnerApproach, cx, cy, k);
    }
    ctx.globalAlpha = 1;
  }

  private firstEvent(time: number): number {
    const ev = this.scene.judgement.events;
    let lo = 0;
    let hi = ev.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev[mid]!.time < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private drawJudgements(ctx: SKRSContext2D, t: number): void {
    const ev = this.scene.judgement.events;
    const sp = this.scene.sprites;
    for (let i = this.firstEvent(t - 800); i < ev.length; i++) {
      const e = ev[i]!;
      if (e.time > t) break;
      if (e.kind !== 'hit' || (e.result === 300 && !sp.show300)) continue;
      const age = t - e.time;
      const life = e.result === 300 ? 400 : 800;
      if (age > life) continue;
      const k = 1 + 0.3 * Math.max(0, 1 - age / 100);
      ctx.globalAlpha = Math.min(1, (1 - age / life) * 2) * (e.result === 300 ? 0.7 : 1);
      const x = this.ox + e.x * this.s;
      const y = this.oy + e.y * this.s + (e.result === 0 ? (age / life) * sp.circleD * 0.3 : 0);
      drawCentred(ctx, sp.judgements.get(e.result)!, x, y, k);
    }
    ctx.globalAlpha = 1;
  }

  private hudState(t: number): { combo: number; score: number; accuracy: number } {
    const ev = this.scene.judgement.events;
    const i = this.firstEvent(t + 0.0001) - 1;
    const e = ev[i];
    return e
      ? { combo: e.combo, score: e.score, accuracy: e.accuracy }
      : { combo: 0, score: 0, accuracy: 1 };
  }

  private drawFlashlight(ctx: SKRSContext2D, t: number, cx: number, cy: number): void {
    const mask = this.scene.flashlight!;
    const combo = this.hudState(t).combo;
    const k = combo >= 200 ? 0.75 : combo >= 100 ? 0.875 : 1;
    const w = mask.width * k;
    const h = mask.height * k;
    ctx.drawImage(mask, cx - w / 2, cy - h / 2, w, h);
    // cover what the scaled mask leaves uncovered
    ctx.fillStyle = 'black';
    const { width: W, height: H } = this.scene;
    if (cx - w / 2 > 0) ctx.fillRect(0, 0, cx - w / 2 + 1, H);
    if (cx + w / 2 < W) ctx.fillRect(cx + w / 2 - 1, 0, W, H);
    if (cy - h / 2 > 0) ctx.fillRect(0, 0, W, cy - h / 2 + 1);
    if (cy + h / 2 < H) ctx.fillRect(0, cy + h / 2 - 1, W, H);
  }

  private drawHud(ctx: SKRSContext2D, t: number): void {
    const sc = this.scene;
    const sp = sc.sprites;
    const { width: W, height: H } = sc;
    const st = this.hudState(t);
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

    if (sc.modsLabel)
      ctx.drawImage(
        sc.modsLabel,
        W - sc.modsLabel.width,
        pad * 3 + sp.scoreFont.height + sp.smallFont.height,
      );
    if (sc.banner && sc.introStart !== undefined) {
      const age = (t - sc.introStart) / sc.play.speed;
      if (age < 5000) {
        ctx.globalAlpha = age < 4000 ? 1 : 1 - (age - 4000) / 1000;
        ctx.drawImage(sc.banner, pad, pad);
        ctx.globalAlpha = 1;
      }
    }
    if (sc.options.keyOverlay) this.drawKeys(ctx, t);
    if (sc.options.hitErrorMeter) this.drawHitErrors(ctx, t);
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
    for (let k = 0; k < 4; k++) {
      const y = y0 + k * size * 1.15;
      ctx.fillStyle = pressed[k] ? 'rgba(255,200,60,0.95)' : 'rgba(40,40,40,0.7)';
      ctx.fillRect(x, y, size, size);
      ctx.strokeStyle = 'rgba(255,255,255,0.8)';
      ctx.lineWidth = Math.max(1, H * 0.002);
      ctx.strokeRect(x, y, size, size);
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

  private drawCursor(ctx: SKRSContext2D, t: number, cx: number, cy: number): void {
    const sp = this.scene.sprites;
    const speed = this.scene.play.speed;
    const trail = sp.cursorTrail;
    for (let k = 8; k >= 1; k--) {
      const p = this.scene.cursor.positionAt(t - k * 6 * speed, this.pos2);
      ctx.globalAlpha = 0.5 * (1 - k / 9);
      drawCentred(ctx, trail, this.ox + p.x * this.s, this.oy + p.y * this.s);
    }
    ctx.globalAlpha = 1;
    const pressed = (this.scene.cursor.keysAt(t) & 15) !== 0;
    drawCentred(ctx, sp.cursor, cx, cy, pressed ? 1.2 : 1);
    if (sp.cursorMiddle) drawCentred(ctx, sp.cursorMiddle, cx, cy);
  }
}

/** Draws `img` centred on (x, y): at its own size, or scaled by `k`. */
function drawCentred(ctx: SKRSContext2D, img: Canvas, x: number, y: number, k?: number): void {
  if (k === undefined) ctx.drawImage(img, x - img.width / 2, y - img.height / 2);
  else {
    const w = img.width * k;
    const h = img.height * k;
    ctx.drawImage(img, x - w / 2, y - h / 2, w, h);
  }
}

/**
 * The frame's pixels for ffmpeg. `getImageData` costs less than `canvas.data()` here
 * (bench:render-stages at 1080p, 4 of 4 pairs: readback 4.6 -> 4.0 ms, node CPU
 * 6.6 -> 5.9 ms a frame; likely the snapshot data() takes, copied again on the next
 * draw). The frames are opaque, so unpremultiplying changes nothing.
 */
export function readFrame(ctx: SKRSContext2D, width: number, height: number): Uint8Array {
  const d = ctx.getImageData(0, 0, width, height).data;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

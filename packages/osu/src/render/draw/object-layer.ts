/**
 * The playfield's objects at a map time: follow points, hit circles with approach
 * circles and combo numbers, sliders (snaking in and out, ticks, reverse arrows, ball
 * and follow circle), spinners, and the judgements shown where they happened.
 */
import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import { sliderPositionAt, type PlayObject } from '../../beatmap/playable.js';
import { Mods } from '../../replay/mods.js';
import type { Scene } from '../frame-drawer.js';
import { drawText } from '../vector-font.js';
import { drawCentred } from './draw-centred.js';
import type { JudgementTimeline } from './judgement-timeline.js';
import { PlayfieldLayer } from './playfield-layer.js';
import type { PlayfieldView } from './playfield-view.js';
import { frameAt } from '../sprites.js';

/** How long hit lighting glows (real-time ms). */
const LIGHTING_MS = 600;

/** Pixels of slider body sprites kept at once (4 bytes each: 256 MB). */
const BODY_PIXEL_BUDGET = 64 << 20;

export class ObjectLayer extends PlayfieldLayer {
  private readonly hidden: boolean;
  private readonly paths = new Map<number, Float32Array>();
  /** Whole slider bodies drawn once (by object index), for the frames that do not snake. */
  private readonly bodies = new Map<number, { canvas: Canvas; x: number; y: number }>();
  /** Pixels held by `bodies`; past BODY_PIXEL_BUDGET bodies are stroked each frame instead. */
  private bodyPixels = 0;
  private lo = 0;

  constructor(scene: Scene, view: PlayfieldView, timeline: JudgementTimeline) {
    super(scene, view, timeline);
    this.hidden = (scene.play.mods & Mods.Hidden) !== 0;
  }

  /** Follow points, sliders, spinners and circles (later objects under earlier ones). */
  draw(ctx: SKRSContext2D, t: number): void {
    const objs = this.scene.play.objects;
    const preempt = this.scene.play.preempt;
    while (this.lo < objs.length && objs[this.lo]!.endTime + 1000 < t) {
      const body = this.bodies.get(this.lo);
      if (body) this.bodyPixels -= body.canvas.width * body.canvas.height;
      this.bodies.delete(this.lo);
      this.paths.delete(this.lo);
      this.lo++;
    }
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
        const px = this.ox + (a.endX + dx * f) * this.s;
        const py = this.oy + (a.endY + dy * f) * this.s;
        const sprite = this.scene.sprites.followPoint;
        if (sprite) {
          const age = (t - appear) / this.scene.play.speed;
          const frame = frameAt(sprite, age, this.scene.sprites.animationFramerate, false);
          ctx.save();
          ctx.translate(px, py);
          ctx.rotate(Math.atan2(dy, dx));
          ctx.drawImage(frame, -frame.width / 2, -frame.height / 2);
          ctx.restore();
        } else ctx.fillRect(px - dot / 2, py - dot / 2, dot, dot);
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
    const overlay = sliderHead ? sp.sliderStartOverlay : sp.circleOverlay;
    if (t >= judgedAt) {
      const age = t - judgedAt;
      if (hit && !this.hidden) {
        const p = age / 240;
        if (p >= 1) return;
        const k = 1 + 0.4 * p;
        ctx.globalAlpha = 1 - p;
        drawCentred(ctx, img, sx, sy, k);
        if (overlay) drawCentred(ctx, overlay, sx, sy, k);
      } else if (!hit) {
        const p = age / 120;
        if (p >= 1) return;
        ctx.globalAlpha = (1 - p) * this.fadeAlpha(o, judgedAt);
        drawCentred(ctx, img, sx, sy);
        if (overlay) drawCentred(ctx, overlay, sx, sy);
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
      if (overlay) drawCentred(ctx, overlay, sx, sy);
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

  private tracePath(
    ctx: SKRSContext2D,
    o: PlayObject,
    d0: number,
    d1: number,
    dx = 0,
    dy = 0,
  ): void {
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
    ctx.moveTo(this.pos2.x + dx, this.pos2.y + dy);
    for (let i = 0; i < n; i++) {
      const c = cum[i]!;
      if (c <= d0) continue;
      if (c >= d1) break;
      ctx.lineTo(p[i * 2]! + dx, p[i * 2 + 1]! + dy);
    }
    at(d1, this.pos2);
    ctx.lineTo(this.pos2.x + dx + 0.01, this.pos2.y + dy);
  }

  /** The border, track and highlight strokes of the body between path distances d0 and d1. */
  private strokeBody(
    ctx: SKRSContext2D,
    o: PlayObject,
    d0: number,
    d1: number,
    dx = 0,
    dy = 0,
  ): void {
    const sp = this.scene.sprites;
    const colour = o.comboIndex % sp.comboColours.length;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    this.tracePath(ctx, o, d0, d1, dx, dy);
    ctx.strokeStyle = sp.sliderBorder;
    ctx.lineWidth = sp.circleD * 0.9;
    ctx.stroke();
    ctx.strokeStyle = sp.sliderTrack(sp.comboColours[colour]!);
    ctx.lineWidth = sp.circleD * 0.78;
    ctx.stroke();
    ctx.strokeStyle = 'rgba(255,255,255,0.08)';
    ctx.lineWidth = sp.circleD * 0.4;
    ctx.stroke();
  }

  /**
   * The whole body as a sprite, drawn once, as the game draws a slider body into a
   * buffer and fades that: three strokes each faded on their own showed the white border
   * through the translucent track. (Not a speed gain: a 1080p frame's rasterisation is
   * dominated by a fixed cost of the flush; measured within noise.)
   */
  private bodySprite(o: PlayObject): { canvas: Canvas; x: number; y: number } | undefined {
    let body = this.bodies.get(o.index);
    if (!body) {
      const p = this.screenPath(o);
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      for (let i = 0; i < p.length; i += 2) {
        x0 = Math.min(x0, p[i]!);
        x1 = Math.max(x1, p[i]!);
        y0 = Math.min(y0, p[i + 1]!);
        y1 = Math.max(y1, p[i + 1]!);
      }
      const margin = this.scene.sprites.circleD * 0.45 + 2;
      // only what is on screen (a path off screen is crafted; the sprite stays bounded)
      const { width: W, height: H } = this.scene;
      x0 = Math.max(0, Math.floor(x0 - margin));
      y0 = Math.max(0, Math.floor(y0 - margin));
      x1 = Math.min(W, Math.ceil(x1 + margin));
      y1 = Math.min(H, Math.ceil(y1 + margin));
      const pixels = Math.max(1, x1 - x0) * Math.max(1, y1 - y0);
      // many large sliders on screen at once (a crafted map): stroke them instead
      if (this.bodyPixels + pixels > BODY_PIXEL_BUDGET) return undefined;
      this.bodyPixels += pixels;
      const canvas = createCanvas(Math.max(1, x1 - x0), Math.max(1, y1 - y0));
      this.strokeBody(canvas.getContext('2d'), o, 0, o.pixelLength, -x0, -y0);
      body = { canvas, x: x0, y: y0 };
      this.bodies.set(o.index, body);
    }
    return body;
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
      const body = d0 <= 0 && d1 >= L ? this.bodySprite(o) : undefined;
      if (body) ctx.drawImage(body.canvas, body.x, body.y);
      else this.strokeBody(ctx, o, d0, d1);
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
      const age = (t - o.time) / this.scene.play.speed;
      // ball frames loop at 60 a second (the game ties them to the ball's speed)
      drawCentred(ctx, frameAt(sp.sliderBall[colour]!, age, 60, true), bx, by);
      const cur = sc.cursor.positionAt(t, this.pos2);
      const keys = sc.cursor.keysAt(t);
      if (keys & 15 && Math.hypot(cur.x - ball.x, cur.y - ball.y) <= sc.play.radius * 2.4)
        drawCentred(ctx, frameAt(sp.followCircle, age, sp.animationFramerate, true), bx, by);
    }
  }

  private drawSpinner(ctx: SKRSContext2D, o: PlayObject, t: number): void {
    if (t < o.time - 300 || t > o.endTime + 200) return;
    const sp = this.scene.sprites;
    const parts = sp.spinner;
    const cx = this.ox + 256 * this.s;
    const cy = this.oy + 192 * this.s;
    const alpha = Math.max(
      0,
      Math.min(
        1,
        t < o.time ? (t - (o.time - 300)) / 300 : t > o.endTime ? 1 - (t - o.endTime) / 200 : 1,
      ),
    );
    const { angle, progress } = this.spinAt(o, t);
    const turned = (img: Canvas | undefined, a: number): void => {
      if (!img) return;
      ctx.save();
      ctx.translate(cx, cy);
      ctx.rotate(a);
      drawCentred(ctx, img, 0, 0);
      ctx.restore();
    };
    ctx.globalAlpha = alpha;
    if (parts.top || parts.bottom) {
      // the newer style: bottom turns slowly, top with the spinning, middle reddens
      turned(parts.bottom, angle * 0.2);
      turned(parts.top, angle);
      if (parts.middle2) drawCentred(ctx, parts.middle2, cx, cy);
      if (parts.middle) drawCentred(ctx, parts.middle, cx, cy);
      if (parts.middleRed) {
        ctx.globalAlpha = alpha * Math.min(1, progress);
        drawCentred(ctx, parts.middleRed, cx, cy);
        ctx.globalAlpha = alpha;
      }
    } else {
      if (parts.background) drawCentred(ctx, parts.background, cx, cy);
      if (parts.metre) {
        // the metre fills from the bottom in tenths, as the game's bars
        const m = parts.metre;
        const shown = Math.min(1, Math.floor(progress * 10) / 10);
        const h = Math.round(m.height * shown);
        if (h > 0) {
          const x = cx - m.width / 2;
          const y = cy - m.height / 2;
          ctx.drawImage(m, 0, m.height - h, m.width, h, x, y + m.height - h, m.width, h);
        }
      }
      turned(sp.spinnerCircle, angle);
    }
    if (t >= o.time && t <= o.endTime) {
      const k = Math.max(0.02, 1 - (t - o.time) / Math.max(1, o.endTime - o.time));
      drawCentred(ctx, sp.spinnerApproach, cx, cy, k);
    }
    const below = cy + this.s * 120;
    if (parts.spin && t >= o.time && t < o.time + 1000 * this.scene.play.speed)
      drawCentred(ctx, parts.spin, cx, below);
    if (parts.clear && progress >= 1) drawCentred(ctx, parts.clear, cx, cy - this.s * 100);
    ctx.globalAlpha = 1;
  }

  /** How far a spinner has turned (radians) and its progress to a 300 (1 = enough turns) at `t`. */
  private spinAt(o: PlayObject, t: number): { angle: number; progress: number } {
    const track = this.scene.judgement.spins?.get(o.index);
    if (!track || track.times.length === 0) {
      // no record (a spinner the replay never reached): the cursor's bearing, as before
      const cur = this.scene.cursor.positionAt(t, this.pos2);
      return { angle: Math.atan2(cur.y - 192, cur.x - 256), progress: 0 };
    }
    let lo = 0;
    let hi = track.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (track.times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    const total = lo > 0 ? track.angles[lo - 1]! : 0;
    return { angle: total, progress: Math.abs(total) / (2 * Math.PI) / Math.max(1, track.needed) };
  }

  /** Hit lighting: a glow in the combo colour where a circle or slider head was hit. */
  drawLighting(ctx: SKRSContext2D, t: number): void {
    const ev = this.scene.judgement.events;
    const sp = this.scene.sprites;
    const objs = this.scene.play.objects;
    const life = LIGHTING_MS * this.scene.play.speed;
    ctx.globalCompositeOperation = 'lighter';
    for (let i = this.timeline.firstEvent(t - life); i < ev.length; i++) {
      const e = ev[i]!;
      if (e.time > t) break;
      const o = objs[e.objectIndex];
      const struck =
        (e.kind === 'hit' && o?.kind === 'circle' && e.result > 0) ||
        (e.kind === 'head' && e.result > 0);
      if (!struck || !o) continue;
      const p = (t - e.time) / life;
      ctx.globalAlpha = 1 - p;
      const glow = sp.lighting[o.comboIndex % sp.lighting.length]!;
      drawCentred(ctx, glow, this.ox + e.x * this.s, this.oy + e.y * this.s, 1 + 0.2 * p);
    }
    ctx.globalCompositeOperation = 'source-over';
    ctx.globalAlpha = 1;
  }

  /** 100s, 50s and misses (300s when the skin has them) where they happened. */
  drawJudgements(ctx: SKRSContext2D, t: number): void {
    const ev = this.scene.judgement.events;
    const sp = this.scene.sprites;
    for (let i = this.timeline.firstEvent(t - 800); i < ev.length; i++) {
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
      const frames = sp.judgements.get(e.result)!;
      drawCentred(
        ctx,
        frameAt(frames, age / this.scene.play.speed, sp.animationFramerate, false),
        x,
        y,
        k,
      );
    }
    ctx.globalAlpha = 1;
  }
}

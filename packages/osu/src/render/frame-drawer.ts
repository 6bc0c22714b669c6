/**
 * Draws one frame of a play at a map time, layer by layer: background (dimmed),
 * storyboard and beatmap video, the objects (draw/object-layer), judgements, the
 * storyboard's overlay, flashlight, HUD (draw/hud-layer) and the cursor
 * (draw/cursor-layer). All sprites are prepared beforehand; nothing here loads.
 */
import { createCanvas, type Canvas, type ImageData, type SKRSContext2D } from '@napi-rs/canvas';
import type { PlayableBeatmap } from '../beatmap/playable.js';
import type { JudgementResult } from '../judgement/types.js';
import type { LifeBarPoint } from '../replay/types.js';
import type { CursorTrack } from './cursor-track.js';
import type { DimSchedule } from './dim-schedule.js';
import { CursorLayer } from './draw/cursor-layer.js';
import { HudLayer } from './draw/hud-layer.js';
import { JudgementTimeline } from './draw/judgement-timeline.js';
import { ObjectLayer } from './draw/object-layer.js';
import { playfieldTransform } from './draw/playfield-view.js';
import type { Sprites } from './sprites.js';
import type { StoryboardPlayer } from './storyboard-player.js';

export interface DrawOptions {
  /** Background dim while playing, 0..1. */
  bgDim: number;
  /** Background dim before the first object appears, and inside breaks. */
  introBgDim: number;
  breakBgDim: number;
  snakingIn: boolean;
  snakingOut: boolean;
  hitErrorMeter: boolean;
  keyOverlay: boolean;
  /** HP bar from the replay's life graph. */
  hpBar: boolean;
  /** Running unstable rate above the hit error meter. */
  unstableRate: boolean;
  /** Counts of 100s, 50s, misses and slider breaks. */
  hitCounter: boolean;
  /** The ranking panel after a completed play. */
  resultsScreen: boolean;
  /** Performance points of the play so far, under the accuracy. */
  ppCounter: boolean;
  /** A glow where circles are hit. */
  hitLighting: boolean;
  /** The beatmap's own skin images over the skin's. */
  useBeatmapSkin: boolean;
  /** Cursor scale, 0.5..2. */
  cursorSize: number;
  /** Combo colours (and slider border/track) from the beatmap where it has them, else the skin's. */
  useBeatmapColours: boolean;
}

export interface Scene {
  width: number;
  height: number;
  play: PlayableBeatmap;
  judgement: JudgementResult;
  cursor: CursorTrack;
  sprites: Sprites;
  /** Background already dimmed to the in-game dim (used when there is no storyboard or video). */
  dimmedBackground: Canvas;
  /** The background at each steady dim of `dim` (in-game, intro, break). */
  dimmedBackgrounds: Map<number, Canvas>;
  /** Dims at which the background is plain black (no image, or dimmed fully). */
  blackLevels?: Set<number>;
  /** Which dim when (intro, playing, breaks). */
  dim: DimSchedule;
  /** Background not dimmed (under storyboard / video). */
  background: Canvas;
  storyboard: StoryboardPlayer | undefined;
  options: DrawOptions;
  /** Map time span the song-progress bar covers. */
  songStart: number;
  songEnd: number;
  /** Flashlight masks (a hole fading to black in a square) per combo stage, when FL is on. */
  flashlight: Canvas[] | undefined;
  /** Title and player, shown over the first seconds. */
  banner: Canvas | undefined;
  /** The mods, under the accuracy. */
  modsLabel: Canvas | undefined;
  /** PP after each judgement event (for the PP counter and the results screen). */
  ppByEvent?: Float64Array;
  /** The game's life graph from the replay (map time, 0..1), for the HP bar. */
  lifeBar: LifeBarPoint[];
  /** Map time of the first frame (the banner fades out from there). */
  introStart?: number;
  /** The results screen, from map time `at` to the end. */
  results?: { at: number; panel: Canvas };
  /** A failed play: drawing stops at map time `at` and fades out under `label`. */
  fail?: { at: number; label: Canvas };
}

/** How long the results screen fades in, and the fail fades out (real-time ms). */
const RESULTS_FADE_MS = 400;
export const FAIL_FADE_MS = 2000;

const LOWER_LAYERS = new Set(['Background', 'Fail', 'Pass', 'Foreground']);
const OVERLAY_LAYER = new Set(['Overlay']);

export { playfieldTransform };

export class FrameDrawer {
  private readonly s: number;
  private readonly ox: number;
  private readonly oy: number;
  private readonly pos = { x: 0, y: 0 };
  private readonly objects: ObjectLayer;
  private readonly hud: HudLayer;
  private readonly cursor: CursorLayer;

  constructor(private readonly scene: Scene) {
    const view = playfieldTransform(scene.width, scene.height);
    this.s = view.scale;
    this.ox = view.x;
    this.oy = view.y;
    const timeline = new JudgementTimeline(scene.judgement, scene.play.speed, scene.ppByEvent);
    this.objects = new ObjectLayer(scene, view, timeline);
    this.hud = new HudLayer(scene, timeline);
    this.cursor = new CursorLayer(scene, view, timeline);
  }

  draw(ctx: SKRSContext2D, time: number, video?: ImageData): void {
    const sc = this.scene;
    ctx.globalAlpha = 1;
    ctx.globalCompositeOperation = 'source-over';
    if (sc.results && time >= sc.results.at) {
      ctx.drawImage(sc.dimmedBackground, 0, 0);
      ctx.globalAlpha = Math.min(1, (time - sc.results.at) / (RESULTS_FADE_MS * sc.play.speed));
      ctx.drawImage(sc.results.panel, 0, 0);
      ctx.globalAlpha = 1;
      return;
    }
    // after a fail the play stands still at the fail and fades out
    const t = sc.fail ? Math.min(time, sc.fail.at) : time;
    if (video || sc.storyboard) {
      if (video) ctx.putImageData(video, 0, 0);
      else ctx.drawImage(sc.background, 0, 0);
      sc.storyboard?.draw(ctx, t, LOWER_LAYERS, sc.width, sc.height);
      const dim = sc.dim.at(t).value;
      if (dim > 0) {
        ctx.fillStyle = `rgba(0,0,0,${dim})`;
        ctx.fillRect(0, 0, sc.width, sc.height);
      }
    } else {
      // steady: one blit of a background dimmed beforehand; fading: two, crossfaded
      const d = sc.dim.at(t);
      this.drawDimmed(ctx, d.from);
      if (d.mix > 0 && d.to !== d.from) {
        ctx.globalAlpha = d.mix;
        this.drawDimmed(ctx, d.to);
        ctx.globalAlpha = 1;
      }
    }

    this.objects.draw(ctx, t);
    if (sc.options.hitLighting) this.objects.drawLighting(ctx, t);
    this.objects.drawJudgements(ctx, t);
    if (sc.storyboard) sc.storyboard.draw(ctx, t, OVERLAY_LAYER, sc.width, sc.height);
    const cur = sc.cursor.positionAt(t, this.pos);
    const cx = this.ox + cur.x * this.s;
    const cy = this.oy + cur.y * this.s;
    if (sc.flashlight) this.cursor.drawFlashlight(ctx, t, cx, cy);
    this.hud.draw(ctx, t);
    this.cursor.drawCursor(ctx, t, cx, cy);
    if (sc.fail && time > sc.fail.at) this.drawFail(ctx, (time - sc.fail.at) / sc.play.speed);
  }

  /** The background at a steady dim: a plain fill where it is black (cheaper than a blit). */
  private drawDimmed(ctx: SKRSContext2D, level: number): void {
    const sc = this.scene;
    if (sc.blackLevels?.has(level)) {
      ctx.fillStyle = 'black';
      ctx.fillRect(0, 0, sc.width, sc.height);
    } else ctx.drawImage(sc.dimmedBackgrounds.get(level) ?? sc.dimmedBackground, 0, 0);
  }

  private drawFail(ctx: SKRSContext2D, age: number): void {
    const sc = this.scene;
    const p = Math.min(1, age / FAIL_FADE_MS);
    ctx.fillStyle = `rgba(0,0,0,${0.8 * p})`;
    ctx.fillRect(0, 0, sc.width, sc.height);
    const label = sc.fail!.label;
    ctx.globalAlpha = Math.min(1, p * 2);
    ctx.drawImage(label, (sc.width - label.width) / 2, (sc.height - label.height) / 2);
    ctx.globalAlpha = 1;
  }
}

/**
 * The canvas a render draws its frames on: opaque (`alpha: false`), as every frame is
 * (the background or a black fill covers it first). Skia then reads it back without
 * unpremultiplying and blends onto it without keeping an alpha channel: the same
 * pixels (frames' sha256 equal over 120 1080p frames of realmagnolia), fewer
 * instructions a frame (README, Benchmarks).
 */
export function createFrameCanvas(width: number, height: number): SKRSContext2D {
  return createCanvas(width, height).getContext('2d', { alpha: false });
}

/**
 * The frame's pixels for ffmpeg, valid until the next readback is converted (the
 * encoder copies them out at once). `canvas.data()` rather than `getImageData`: the
 * frames are opaque, so its premultiplied pixels are the same bytes (sha256 equal),
 * and its block comes from the canvas library's allocator, which reuses the previous
 * frame's pages (canvas-allocator.ts) where `getImageData`'s came fresh from the
 * kernel each frame: node CPU of a 1080p frame 11.3-14.0 -> 6.7-7.9 ms in
 * bench/render-stages' loop (README, Benchmarks).
 */
export function readFrame(ctx: SKRSContext2D): Uint8Array {
  return ctx.canvas.data();
}

/**
 * One object of a map as the osu!standard difficulty calculation sees it (our port of
 * osu.Game.Rulesets.Osu/Difficulty/Preprocessing/OsuDifficultyHitObject, difficulty
 * calculator version 20250306): times divided by the clock rate, distances normalised to
 * a circle radius of 50 (a little more for circles under 30 px), the "lazy" cursor path
 * through a slider, and the angle between movements. Where the game keeps single precision
 * (slider travel) so do we.
 */
import type { PlayObject } from '../beatmap/playable.js';
import { pointAtDistance } from '../beatmap/slider-path.js';

export const NORMALISED_RADIUS = 50;
export const NORMALISED_DIAMETER = NORMALISED_RADIUS * 2;
export const MIN_DELTA_TIME = 25;
const MAXIMUM_SLIDER_RADIUS = NORMALISED_RADIUS * 2.4;
const ASSUMED_SLIDER_RADIUS = NORMALISED_RADIUS * 1.8;
/** Slider tails are judged this long before their end (the legacy last tick). */
const TAIL_LENIENCY = -36;

/** What the calculation needs of the map: objects in play space, after mods. */
export interface DifficultyMap {
  objects: PlayObject[];
  /** Circle radius in osu! pixels, as lazer computes it. */
  radius: number;
  /** Approach time and fade-in time (ms, map time). */
  preempt: number;
  fadeIn: number;
  /** Half the 300 window (ms, map time): 80 - 6 OD. */
  greatWindow: number;
}

interface Point {
  x: number;
  y: number;
}

const dist = (a: Point, b: Point): number => Math.hypot(a.x - b.x, a.y - b.y);

export class DifficultyObject {
  readonly index: number;
  readonly base: PlayObject;
  readonly last: PlayObject;
  readonly deltaTime: number;
  readonly startTime: number;
  /** deltaTime, at least 25 ms. */
  readonly strainTime: number;
  readonly hitWindowGreat: number;
  lazyJumpDistance = 0;
  minimumJumpDistance = 0;
  minimumJumpTime = 0;
  travelDistance = 0;
  travelTime = 0;
  lazyEndPosition: Point | undefined;
  lazyTravelDistance = 0;
  lazyTravelTime = 0;
  angle: number | undefined;

  constructor(
    base: PlayObject,
    last: PlayObject,
    lastLastBase: PlayObject | undefined,
    private readonly map: DifficultyMap,
    clockRate: number,
    private readonly objects: DifficultyObject[],
    index: number,
  ) {
    this.index = index;
    this.base = base;
    this.last = last;
    this.deltaTime = (base.time - last.time) / clockRate;
    this.startTime = base.time / clockRate;
    this.strainTime = Math.max(this.deltaTime, MIN_DELTA_TIME);
    this.hitWindowGreat = (2 * map.greatWindow) / clockRate;
    if (base.kind === 'slider') {
      const c = lazyCursor(base, map);
      this.lazyEndPosition = c.end;
      this.lazyTravelDistance = c.travelDistance;
      this.lazyTravelTime = c.travelTime;
    }
    this.setDistances(clockRate, lastLastBase);
  }

  previous(back: number): DifficultyObject | undefined {
    return this.objects[this.index - (back + 1)];
  }

  next(forward: number): DifficultyObject | undefined {
    return this.objects[this.index + (forward + 1)];
  }

  /** How visible the object is at `time` (map time), with or without Hidden. */
  opacityAt(time: number, hidden: boolean): number {
    const o = this.base;
    if (time > o.time) return 0;
    const fadeInStart = o.time - this.map.preempt;
    const fadeIn = clamp01((time - fadeInStart) / this.map.fadeIn);
    if (!hidden) return fadeIn;
    const fadeOutStart = o.time - this.map.preempt + this.map.fadeIn;
    const fadeOutDuration = this.map.preempt * 0.3;
    return Math.min(fadeIn, 1 - clamp01((time - fadeOutStart) / fadeOutDuration));
  }

  doubletapness(next: DifficultyObject | undefined): number {
    if (!next) return 0;
    const curr = Math.max(1, this.deltaTime);
    const nxt = Math.max(1, next.deltaTime);
    const speedRatio = curr / Math.max(curr, Math.abs(nxt - curr));
    const windowRatio = Math.min(1, curr / this.hitWindowGreat) ** 2;
    return 1 - speedRatio ** (1 - windowRatio);
  }

  private setDistances(clockRate: number, lastLast: PlayObject | undefined): void {
    const base = this.base;
    if (base.kind === 'slider') {
      this.travelDistance = f32(
        this.lazyTravelDistance * f32((1 + (base.slides - 1) / 2.5) ** (1 / 2.5)),
      );
      this.travelTime = Math.max(this.lazyTravelTime / clockRate, MIN_DELTA_TIME);
    }
    if (base.kind === 'spinner' || this.last.kind === 'spinner') return;
    let scale = f32(NORMALISED_RADIUS / this.map.radius);
    if (this.map.radius < 30)
      scale = f32(scale * (1 + f32(Math.min(30 - this.map.radius, 5) / 50)));
    const lastCursor = endCursor(this.last, this.map);
    this.lazyJumpDistance = dist(base, lastCursor) * scale;
    this.minimumJumpTime = this.strainTime;
    this.minimumJumpDistance = this.lazyJumpDistance;
    if (this.last.kind === 'slider') {
      const lastTravelTime = Math.max(
        lazyCursor(this.last, this.map).travelTime / clockRate,
        MIN_DELTA_TIME,
      );
      this.minimumJumpTime = Math.max(this.strainTime - lastTravelTime, MIN_DELTA_TIME);
      const tail = { x: this.last.endX, y: this.last.endY };
      const tailJump = dist(tail, base) * scale;
      this.minimumJumpDistance = Math.max(
        0,
        Math.min(
          this.lazyJumpDistance - (MAXIMUM_SLIDER_RADIUS - ASSUMED_SLIDER_RADIUS),
          tailJump - MAXIMUM_SLIDER_RADIUS,
        ),
      );
    }
    if (lastLast && lastLast.kind !== 'spinner') {
      const lastLastCursor = endCursor(lastLast, this.map);
      const v1x = lastLastCursor.x - this.last.x;
      const v1y = lastLastCursor.y - this.last.y;
      const v2x = base.x - lastCursor.x;
      const v2y = base.y - lastCursor.y;
      const dot = v1x * v2x + v1y * v2y;
      const det = v1x * v2y - v1y * v2x;
      this.angle = Math.abs(Math.atan2(det, dot));
    }
  }
}

/** Where the cursor is when an object is done: a slider's lazy end, else the object. */
function endCursor(o: PlayObject, map: DifficultyMap): Point {
  return o.kind === 'slider' ? lazyCursor(o, map).end : o;
}

interface LazyCursor {
  end: Point;
  travelDistance: number;
  travelTime: number;
}

const lazyCursors = new WeakMap<PlayObject, LazyCursor>();

/**
 * Where a lazy cursor goes through a slider: only as far as each nested object (tick,
 * repeat, tail) needs. Computed once per slider (the game keeps it on the slider).
 */
function lazyCursor(s: PlayObject, map: DifficultyMap): LazyCursor {
  const known = lazyCursors.get(s);
  if (known) return known;
  const result: LazyCursor = { end: { x: s.x, y: s.y }, travelDistance: 0, travelTime: 0 };
  lazyCursors.set(s, result);
  if (!s.path || !s.cumulative) return result;
  const duration = s.endTime - s.time;
  let trackingEnd = Math.max(s.time + duration + TAIL_LENIENCY, s.time + duration / 2);
  // head, ticks and repeats, then the tail: lazer's nested objects in time order
  const nested: (Point & { time: number; kind: string })[] = [
    { x: s.x, y: s.y, time: s.time, kind: 'head' },
    ...s.events.filter((e) => e.kind !== 'end'),
    { x: s.endX, y: s.endY, time: s.endTime, kind: 'tail' },
  ];
  let lastTick = -1;
  nested.forEach((n, i) => {
    if (n.kind === 'tick') lastTick = i;
  });
  if (lastTick >= 0 && nested[lastTick]!.time > trackingEnd) {
    trackingEnd = nested[lastTick]!.time;
    nested.push(nested.splice(lastTick, 1)[0]!);
  }
  result.travelTime = trackingEnd - s.time;
  let endProgress = s.spanDuration > 0 ? result.travelTime / s.spanDuration : 0;
  endProgress = endProgress % 2 >= 1 ? 1 - (endProgress % 1) : endProgress % 1;
  result.end = pointAtDistance(s.path, s.cumulative, endProgress * s.pixelLength);
  let cursor: Point = { x: s.x, y: s.y };
  const scale = NORMALISED_RADIUS / map.radius;
  for (let i = 1; i < nested.length; i++) {
    const obj = nested[i]!;
    let mx = obj.x - cursor.x;
    let my = obj.y - cursor.y;
    let length = scale * Math.hypot(mx, my);
    let required = ASSUMED_SLIDER_RADIUS;
    if (i === nested.length - 1) {
      const lx = result.end.x - cursor.x;
      const ly = result.end.y - cursor.y;
      if (Math.hypot(lx, ly) < Math.hypot(mx, my)) {
        mx = lx;
        my = ly;
      }
      length = scale * Math.hypot(mx, my);
    } else if (obj.kind === 'repeat') required = NORMALISED_RADIUS;
    if (length > required) {
      const k = (length - required) / length;
      cursor = { x: cursor.x + mx * k, y: cursor.y + my * k };
      length *= k;
      result.travelDistance = f32(result.travelDistance + f32(length));
    }
    if (i === nested.length - 1) result.end = cursor;
  }
  return result;
}

const f32 = Math.fround;

function clamp01(v: number): number {
  return Math.min(1, Math.max(0, v));
}

/**
 * A beatmap as played with mods: difficulty after HR/EZ, HR's vertical flip, stable's
 * stacking (the v6+ algorithm and the older one), slider ticks, repeats and the legacy
 * end point, and the derived sizes and windows (circle radius, preempt, hit windows).
 */
import { Mods, modsSpeed } from '../replay/mods.js';
import { pointAtDistance } from './slider-path.js';
import type { Beatmap, HitObject, Vec2 } from './types.js';

export interface SliderEvent {
  kind: 'tick' | 'repeat' | 'end';
  time: number;
  x: number;
  y: number;
  span: number;
}

export interface PlayObject {
  index: number;
  source: HitObject;
  kind: HitObject['kind'];
  /** Stacked (and flipped) position. */
  x: number;
  y: number;
  time: number;
  endTime: number;
  stackHeight: number;
  comboIndex: number;
  comboNumber: number;
  /** Slider: path in play space (flipped and stacked). */
  path: Vec2[] | undefined;
  cumulative: number[] | undefined;
  slides: number;
  spanDuration: number;
  pixelLength: number;
  /** Ticks, repeats and the (legacy, 36 ms early) end, in time order. */
  events: SliderEvent[];
  /** Where the slider ends (after its last span). */
  endX: number;
  endY: number;
}

export interface PlayableBeatmap {
  beatmap: Beatmap;
  mods: number;
  speed: number;
  cs: number;
  ar: number;
  od: number;
  hp: number;
  /** Circle radius in osu! pixels. */
  radius: number;
  /** Time an object appears before its hit time (ms, map time). */
  preempt: number;
  fadeIn: number;
  hit300: number;
  hit100: number;
  hit50: number;
  objects: PlayObject[];
}

const STACK_DISTANCE = 3;

export function difficultyRange(d: number, min: number, mid: number, max: number): number {
  if (d > 5) return mid + ((max - mid) * (d - 5)) / 5;
  if (d < 5) return mid - ((mid - min) * (5 - d)) / 5;
  return mid;
}

/** Position along a slider at `t` (ms), following repeats. */
export function sliderPositionAt(o: PlayObject, t: number): Vec2 {
  if (!o.path || !o.cumulative || o.spanDuration <= 0) return { x: o.x, y: o.y };
  const clamped = Math.min(Math.max(t - o.time, 0), o.spanDuration * o.slides);
  let span = Math.floor(clamped / o.spanDuration);
  if (span >= o.slides) span = o.slides - 1;
  let progress = (clamped - span * o.spanDuration) / o.spanDuration;
  if (span % 2 === 1) progress = 1 - progress;
  return pointAtDistance(o.path, o.cumulative, progress * o.pixelLength);
}

export function preparePlayable(beatmap: Beatmap, mods: number): PlayableBeatmap {
  const hr = (mods & Mods.HardRock) !== 0;
  const ez = (mods & Mods.Easy) !== 0;
  const d = beatmap.difficulty;
  const adjust = (v: number, hrFactor: number): number =>
    hr ? Math.min(10, v * hrFactor) : ez ? v / 2 : v;
  const cs = adjust(d.cs, 1.3);
  const ar = adjust(d.ar, 1.4);
  const od = adjust(d.od, 1.4);
  const hp = adjust(d.hp, 1.4);
  const radius = 54.4 - 4.48 * cs;
  const preempt = difficultyRange(ar, 1800, 1200, 450);
  const fadeIn = difficultyRange(ar, 1200, 800, 300);
  const flip = (y: number): number => (hr ? 384 - y : y);

  const objects: PlayObject[] = beatmap.hitObjects
    .filter((h) => h.kind !== 'hold')
    .map((h, index) => {
      const s = h.slider;
      const path = s?.path.map((p) => ({ x: p.x, y: flip(p.y) }));
      const o: PlayObject = {
        index,
        source: h,
        kind: h.kind,
        x: h.x,
        y: flip(h.y),
        time: h.time,
        endTime: h.endTime,
        stackHeight: 0,
        comboIndex: h.comboIndex,
        comboNumber: h.comboNumber,
        path,
        cumulative: s?.cumulative,
        slides: s?.slides ?? 1,
        spanDuration: s?.spanDuration ?? 0,
        pixelLength: s?.pixelLength ?? 0,
        events: [],
        endX: h.x,
        endY: flip(h.y),
      };
      if (s && path) {
        const end = sliderPositionAt(o, o.endTime);
        o.endX = end.x;
        o.endY = end.y;
      }
      return o;
    });

  const stackThreshold = preempt * beatmap.stackLeniency;
  if (beatmap.formatVersion >= 6) applyStacking(objects, stackThreshold);
  else applyStackingOld(objects, stackThreshold);

  const stackUnit = radius / 10;
  for (const o of objects) {
    if (o.stackHeight !== 0 && o.kind !== 'spinner') {
      const off = -o.stackHeight * stackUnit;
      o.x += off;
      o.y += off;
      o.endX += off;
      o.endY += off;
      if (o.path) o.path = o.path.map((p) => ({ x: p.x + off, y: p.y + off }));
    }
    if (o.kind === 'slider' && o.source.slider)
      o.events = sliderEvents(o, o.source.slider.tickDistance, o.source.slider.velocity);
  }

  return {
    beatmap,
    mods,
    speed: modsSpeed(mods),
    cs,
    ar,
    od,
    hp,
    radius,
    preempt,
    fadeIn,
    hit300: Math.floor(difficultyRange(od, 80, 50, 20)),
    hit100: Math.floor(difficultyRange(od, 140, 100, 60)),
    hit50: Math.floor(difficultyRange(od, 200, 150, 100)),
    objects,
  };
}

function sliderEvents(o: PlayObject, tickDistance: number, velocity: number): SliderEvent[] {
  const events: SliderEvent[] = [];
  const length = o.pixelLength;
  const minDistanceFromEnd = velocity * 10;
  const at = (t: number): Vec2 => sliderPositionAt(o, t);
  for (let span = 0; span < o.slides; span++) {
    const spanStart = o.time + span * o.spanDuration;
    const reversed = span % 2 === 1;
    const ticks: SliderEvent[] = [];
    if (tickDistance > 0 && length > 0) {
      for (
        let dd = tickDistance;
        dd < length - minDistanceFromEnd && ticks.length < 1000;
        dd += tickDistance
      ) {
        const progress = dd / length;
        const t = spanStart + (reversed ? 1 - progress : progress) * o.spanDuration;
        const p = at(t);
        // the game judges ticks and repeats at whole milliseconds (the time cut down)
        ticks.push({ kind: 'tick', time: Math.floor(t), x: p.x, y: p.y, span });
      }
    }
    if (reversed) ticks.reverse();
    events.push(...ticks);
    if (span < o.slides - 1) {
      const t = spanStart + o.spanDuration;
      const p = at(t);
      events.push({ kind: 'repeat', time: Math.floor(t), x: p.x, y: p.y, span });
    }
  }
  const duration = o.endTime - o.time;
  // integer times, as the game keeps them
  const endTime = Math.max(o.time + Math.floor(duration / 2), o.endTime - 36);
  const p = at(endTime);
  events.push({ kind: 'end', time: endTime, x: p.x, y: p.y, span: o.slides - 1 });
  return events;
}

const dist = (ax: number, ay: number, bx: number, by: number): number =>
  Math.hypot(ax - bx, ay - by);

function applyStacking(objs: PlayObject[], stackThreshold: number): void {
  const n = objs.length;
  const endIndex = n - 1;
  const startIndex = 0;
  let extendedEndIndex = endIndex;
  // (the forward pass only matters for partial ranges; full range starts at the end)
  let extendedStartIndex = startIndex;
  for (let i = extendedEndIndex; i > startIndex; i--) {
    let k = i;
    let objectI = objs[i]!;
    if (objectI.stackHeight !== 0 || objectI.kind === 'spinner') continue;
    if (objectI.kind === 'circle') {
      while (--k >= 0) {
        const objectN = objs[k]!;
        if (objectN.kind === 'spinner') continue;
        if (objectI.time - objectN.endTime > stackThreshold) break;
        if (k < extendedStartIndex) {
          objectN.stackHeight = 0;
          extendedStartIndex = k;
        }
        if (
          objectN.kind === 'slider' &&
          dist(objectN.endX, objectN.endY, objectI.x, objectI.y) < STACK_DISTANCE
        ) {
          const offset = objectI.stackHeight - objectN.stackHeight + 1;
          for (let j = k + 1; j <= i; j++) {
            const objectJ = objs[j]!;
            if (dist(objectN.endX, objectN.endY, objectJ.x, objectJ.y) < STACK_DISTANCE)
              objectJ.stackHeight -= offset;
          }
          break;
        }
        if (dist(objectN.x, objectN.y, objectI.x, objectI.y) < STACK_DISTANCE) {
          objectN.stackHeight = objectI.stackHeight + 1;
          objectI = objectN;
        }
      }
    } else if (objectI.kind === 'slider') {
      while (--k >= startIndex) {
        const objectN = objs[k]!;
        if (objectN.kind === 'spinner') continue;
        if (objectI.time - objectN.time > stackThreshold) break;
        if (dist(objectN.endX, objectN.endY, objectI.x, objectI.y) < STACK_DISTANCE) {
          objectN.stackHeight = objectI.stackHeight + 1;
          objectI = objectN;
        }
      }
    }
  }
  extendedEndIndex = 0;
}

function applyStackingOld(objs: PlayObject[], stackThreshold: number): void {
  for (let i = 0; i < objs.length; i++) {
    const curr = objs[i]!;
    if (curr.stackHeight !== 0 && curr.kind !== 'slider') continue;
    let startTime = curr.endTime;
    let sliderStack = 0;
    for (let j = i + 1; j < objs.length; j++) {
      const o = objs[j]!;
      if (o.time - stackThreshold > startTime) break;
      if (dist(o.x, o.y, curr.x, curr.y) < STACK_DISTANCE) {
        curr.stackHeight++;
        startTime = o.endTime;
      } else if (dist(o.x, o.y, curr.endX, curr.endY) < STACK_DISTANCE) {
        sliderStack++;
        o.stackHeight -= sliderStack;
        startTime = o.endTime;
      }
    }
  }
}

/**
 * Slider curves: linear, perfect circle (falls back to bézier when degenerate),
 * bézier (segments split at repeated "red" points) and Catmull-Rom, flattened to a
 * polyline and cut or extended to the slider's pixel length.
 */
import type { CurveType, Vec2 } from './types.js';

/** Most de Casteljau steps x points^2 spent on one bézier segment. */
const BEZIER_WORK_BUDGET = 20_000_000;

const dist = (a: Vec2, b: Vec2): number => Math.hypot(a.x - b.x, a.y - b.y);

function bezier(points: Vec2[], out: Vec2[]): void {
  if (points.length < 2) {
    if (points[0]) out.push(points[0]);
    return;
  }
  let approx = 0;
  for (let i = 1; i < points.length; i++) approx += dist(points[i - 1]!, points[i]!);
  const n = points.length;
  // de Casteljau costs n^2/2 a step: a crafted segment of thousands of points gets
  // fewer steps instead of minutes of work (real segments stay far under the budget)
  const budget = Math.max(2, Math.floor(BEZIER_WORK_BUDGET / (n * n)));
  const steps = Math.max(2, Math.min(400, budget, Math.ceil(approx / 3)));
  const tmpX = new Float64Array(n);
  const tmpY = new Float64Array(n);
  for (let s = 0; s <= steps; s++) {
    const t = s / steps;
    for (let i = 0; i < n; i++) {
      tmpX[i] = points[i]!.x;
      tmpY[i] = points[i]!.y;
    }
    for (let k = n - 1; k > 0; k--) {
      for (let i = 0; i < k; i++) {
        tmpX[i] = tmpX[i]! + (tmpX[i + 1]! - tmpX[i]!) * t;
        tmpY[i] = tmpY[i]! + (tmpY[i + 1]! - tmpY[i]!) * t;
      }
    }
    out.push({ x: tmpX[0]!, y: tmpY[0]! });
  }
}

function circle(a: Vec2, b: Vec2, c: Vec2, out: Vec2[]): boolean {
  const d = 2 * (a.x * (b.y - c.y) + b.x * (c.y - a.y) + c.x * (a.y - b.y));
  if (Math.abs(d) < 1e-3) return false;
  const aSq = a.x * a.x + a.y * a.y;
  const bSq = b.x * b.x + b.y * b.y;
  const cSq = c.x * c.x + c.y * c.y;
  const cx = (aSq * (b.y - c.y) + bSq * (c.y - a.y) + cSq * (a.y - b.y)) / d;
  const cy = (aSq * (c.x - b.x) + bSq * (a.x - c.x) + cSq * (b.x - a.x)) / d;
  const r = Math.hypot(a.x - cx, a.y - cy);
  if (!Number.isFinite(r) || r > 1e5) return false;
  const start = Math.atan2(a.y - cy, a.x - cx);
  let end = Math.atan2(c.y - cy, c.x - cx);
  // direction: is b on the left or right of a->c
  const cross = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  const ccw = cross < 0;
  if (ccw) {
    while (end > start) end -= 2 * Math.PI;
  } else {
    while (end < start) end += 2 * Math.PI;
  }
  const range = end - start;
  const steps = Math.max(2, Math.min(1000, Math.ceil((Math.abs(range) * r) / 2)));
  for (let i = 0; i <= steps; i++) {
    const th = start + (range * i) / steps;
    out.push({ x: cx + Math.cos(th) * r, y: cy + Math.sin(th) * r });
  }
  return true;
}

function catmull(points: Vec2[], out: Vec2[]): void {
  for (let i = 0; i < points.length - 1; i++) {
    const v1 = points[i]!;
    const v2 = points[i + 1]!;
    const v0 = i > 0 ? points[i - 1]! : v1;
    const v3 = i < points.length - 2 ? points[i + 2]! : { x: 2 * v2.x - v1.x, y: 2 * v2.y - v1.y };
    for (let c = 0; c < 50; c++) {
      const t = c / 50;
      const t2 = t * t;
      const t3 = t2 * t;
      const f = (p0: number, p1: number, p2: number, p3: number): number =>
        0.5 *
        (2 * p1 +
          (-p0 + p2) * t +
          (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2 +
          (-p0 + 3 * p1 - 3 * p2 + p3) * t3);
      out.push({ x: f(v0.x, v1.x, v2.x, v3.x), y: f(v0.y, v1.y, v2.y, v3.y) });
    }
  }
  const last = points[points.length - 1];
  if (last) out.push(last);
}

/** Flattens the control points into a polyline cut (or extended) to `length`. */
export function computeSliderPath(
  type: CurveType,
  controlPoints: Vec2[],
  length: number,
): { path: Vec2[]; cumulative: number[] } {
  const raw: Vec2[] = [];
  if (type === 'L') raw.push(...controlPoints);
  else if (type === 'C') catmull(controlPoints, raw);
  else if (
    type === 'P' &&
    controlPoints.length === 3 &&
    circle(controlPoints[0]!, controlPoints[1]!, controlPoints[2]!, raw)
  ) {
    // done
  } else {
    // bézier: split at repeated points
    let seg: Vec2[] = [];
    for (let i = 0; i < controlPoints.length; i++) {
      const p = controlPoints[i]!;
      seg.push(p);
      const next = controlPoints[i + 1];
      if (next && next.x === p.x && next.y === p.y) {
        bezier(seg, raw);
        seg = [];
      }
    }
    bezier(seg, raw);
  }
  // dedupe consecutive equal points
  const pts: Vec2[] = [];
  for (const p of raw) {
    const prev = pts[pts.length - 1];
    if (!prev || prev.x !== p.x || prev.y !== p.y) pts.push(p);
  }
  if (pts.length === 0) pts.push(controlPoints[0] ?? { x: 0, y: 0 });
  if (pts.length === 1) pts.push({ ...pts[0]! });
  const cumulative = [0];
  const path: Vec2[] = [pts[0]!];
  let total = 0;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1]!;
    const b = pts[i]!;
    const d = dist(a, b);
    if (length > 0 && total + d >= length) {
      const t = d > 0 ? (length - total) / d : 0;
      path.push({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
      cumulative.push(length);
      return { path, cumulative };
    }
    total += d;
    path.push(b);
    cumulative.push(total);
  }
  if (length > total && path.length >= 2) {
    // extend linearly along the last segment, as the game does
    const a = path[path.length - 2]!;
    const b = path[path.length - 1]!;
    const d = dist(a, b);
    if (d > 0) {
      const ext = length - total;
      path.push({ x: b.x + ((b.x - a.x) / d) * ext, y: b.y + ((b.y - a.y) / d) * ext });
      cumulative.push(length);
    }
  }
  return { path, cumulative };
}

/** Position at a distance along a flattened path (binary search). */
export function pointAtDistance(path: Vec2[], cumulative: number[], d: number): Vec2 {
  const n = path.length;
  if (d <= 0 || n < 2) return path[0]!;
  const total = cumulative[n - 1]!;
  if (d >= total) return path[n - 1]!;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! <= d) lo = mid;
    else hi = mid;
  }
  const a = path[lo]!;
  const b = path[hi]!;
  const span = cumulative[hi]! - cumulative[lo]!;
  const t = span > 0 ? (d - cumulative[lo]!) / span : 0;
  return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
}

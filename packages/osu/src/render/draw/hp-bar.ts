/**
 * The HP bar, from the life graph the game itself recorded in the replay (one point
 * every couple of seconds, linearly interpolated): the game's own drain and recovery,
 * not a re-simulation. Drawn top-left as in the game, green over half, red below.
 */
import type { SKRSContext2D } from '@napi-rs/canvas';
import type { LifeBarPoint } from '../../replay/types.js';

/** Life (0..1) at map time `t`: the recorded graph interpolated, held at its ends. */
export function lifeAt(points: LifeBarPoint[], t: number): number {
  if (points.length === 0) return 1;
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.time <= t) lo = mid + 1;
    else hi = mid;
  }
  const a = points[lo - 1];
  const b = points[lo];
  if (!a) return clamp(b!.life);
  if (!b || b.time <= a.time) return clamp(a.life);
  return clamp(a.life + ((b.life - a.life) * (t - a.time)) / (b.time - a.time));
}

export function drawHpBar(
  ctx: SKRSContext2D,
  points: LifeBarPoint[],
  t: number,
  x: number,
  y: number,
  w: number,
  h: number,
): void {
  const life = lifeAt(points, t);
  ctx.fillStyle = 'rgba(0,0,0,0.5)';
  ctx.fillRect(x, y, w, h);
  ctx.fillStyle =
    life > 0.5 ? 'rgb(120,230,90)' : life > 0.2 ? 'rgb(240,200,60)' : 'rgb(235,60,60)';
  ctx.fillRect(x, y, w * life, h);
  ctx.strokeStyle = 'rgba(255,255,255,0.7)';
  ctx.lineWidth = Math.max(1, h * 0.12);
  ctx.strokeRect(x, y, w, h);
}

function clamp(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 1;
}

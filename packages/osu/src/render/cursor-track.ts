/**
 * The replay's cursor as a time series: placeholder frames (256,-500) dropped, times
 * made monotonic, positions interpolated, key states and per-key press counts.
 */
import type { ReplayFrame } from '../replay/types.js';

export class CursorTrack {
  readonly times: Float64Array;
  readonly xs: Float32Array;
  readonly ys: Float32Array;
  readonly keys: Int32Array;
  /** Press counts so far, per frame: K1, K2, M1, M2. */
  readonly counts: Int32Array;
  readonly length: number;

  constructor(frames: ReplayFrame[]) {
    const kept: ReplayFrame[] = [];
    let last = -Infinity;
    for (const f of frames) {
      if (f.x === 256 && f.y === -500) continue;
      if (f.time < last) continue;
      kept.push(f);
      last = f.time;
    }
    const n = kept.length;
    this.length = n;
    this.times = new Float64Array(n);
    this.xs = new Float32Array(n);
    this.ys = new Float32Array(n);
    this.keys = new Int32Array(n);
    this.counts = new Int32Array(n * 4);
    let prev = 0;
    const c = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      const f = kept[i]!;
      this.times[i] = f.time;
      this.xs[i] = f.x;
      this.ys[i] = f.y;
      this.keys[i] = f.keys;
      const now = CursorTrack.split(f.keys);
      const before = CursorTrack.split(prev);
      for (let k = 0; k < 4; k++) if (now[k] && !before[k]) c[k]!++;
      this.counts.set(c, i * 4);
      prev = f.keys;
    }
  }

  /** [K1, K2, M1, M2] pressed. */
  static split(keys: number): [boolean, boolean, boolean, boolean] {
    const k1 = (keys & 4) !== 0;
    const k2 = (keys & 8) !== 0;
    return [k1, k2, (keys & 1) !== 0 && !k1, (keys & 2) !== 0 && !k2];
  }

  /** Index of the last frame at or before `t` (-1 when before the first). */
  indexAt(t: number): number {
    let lo = 0;
    let hi = this.length - 1;
    if (hi < 0 || t < this.times[0]!) return -1;
    if (t >= this.times[hi]!) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! <= t) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** Interpolated position at `t`, written into `out`. */
  positionAt(t: number, out: { x: number; y: number }): { x: number; y: number } {
    const i = this.indexAt(t);
    if (i < 0) {
      out.x = this.xs[0] ?? 256;
      out.y = this.ys[0] ?? 192;
      return out;
    }
    const j = i + 1;
    if (j >= this.length) {
      out.x = this.xs[i]!;
      out.y = this.ys[i]!;
      return out;
    }
    const t0 = this.times[i]!;
    const t1 = this.times[j]!;
    const a = t1 > t0 ? (t - t0) / (t1 - t0) : 0;
    out.x = this.xs[i]! + (this.xs[j]! - this.xs[i]!) * a;
    out.y = this.ys[i]! + (this.ys[j]! - this.ys[i]!) * a;
    return out;
  }

  keysAt(t: number): number {
    const i = this.indexAt(t);
    return i < 0 ? 0 : this.keys[i]!;
  }
}

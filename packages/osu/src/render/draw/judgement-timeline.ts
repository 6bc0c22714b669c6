/**
 * The judgement as it stood at any map time, for the HUD: combo, score, accuracy, the
 * counts of 300/100/50/miss and slider breaks, and the unstable rate of the hits so
 * far (real-time ms, as the summary's). Prefix sums are built once, each lookup is a
 * binary search.
 */
import type { JudgementEvent, JudgementResult } from '../../judgement/types.js';

export interface HudState {
  combo: number;
  score: number;
  accuracy: number;
  n300: number;
  n100: number;
  n50: number;
  misses: number;
  sliderBreaks: number;
  /** Unstable rate of the hits up to now (0 before two hits). */
  unstableRate: number;
  /** Performance points of the play so far (0 without a PP timeline). */
  pp: number;
}

const EMPTY: Readonly<HudState> = Object.freeze({
  combo: 0,
  score: 0,
  accuracy: 1,
  n300: 0,
  n100: 0,
  n50: 0,
  misses: 0,
  sliderBreaks: 0,
  unstableRate: 0,
  pp: 0,
});

export class JudgementTimeline {
  private readonly events: JudgementEvent[];
  /** Counts after each event: n300, n100, n50, misses, slider breaks. */
  private readonly counts: Int32Array;
  /** Sum and sum of squares of the hit errors up to each hit. */
  private readonly errSum: Float64Array;
  private readonly errSq: Float64Array;
  private readonly errTimes: number[];

  constructor(
    judgement: JudgementResult,
    private readonly speed: number,
    /** PP after each event (same index as the events), for the PP counter. */
    private readonly pp?: Float64Array,
  ) {
    this.events = judgement.events;
    this.counts = new Int32Array(this.events.length * 5);
    const c = [0, 0, 0, 0, 0];
    this.events.forEach((e, i) => {
      if (e.kind === 'hit')
        c[e.result === 300 ? 0 : e.result === 100 ? 1 : e.result === 50 ? 2 : 3]!++;
      else if (e.kind === 'sliderbreak') c[4]!++;
      this.counts.set(c, i * 5);
    });
    this.errTimes = judgement.hitErrorTimes;
    this.errSum = new Float64Array(this.errTimes.length);
    this.errSq = new Float64Array(this.errTimes.length);
    let s = 0;
    let q = 0;
    judgement.hitErrors.forEach((err, i) => {
      s += err;
      q += err * err;
      this.errSum[i] = s;
      this.errSq[i] = q;
    });
  }

  /** Index of the first event at or after `time`. */
  firstEvent(time: number): number {
    const ev = this.events;
    let lo = 0;
    let hi = ev.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev[mid]!.time < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  stateAt(t: number): HudState {
    const i = this.firstEvent(t + 0.0001) - 1;
    const e = this.events[i];
    if (!e) return { ...EMPTY, unstableRate: this.unstableRateAt(t) };
    const k = i * 5;
    return {
      combo: e.combo,
      score: e.score,
      accuracy: e.accuracy,
      n300: this.counts[k]!,
      n100: this.counts[k + 1]!,
      n50: this.counts[k + 2]!,
      misses: this.counts[k + 3]!,
      sliderBreaks: this.counts[k + 4]!,
      unstableRate: this.unstableRateAt(t),
      pp: this.pp?.[i] ?? 0,
    };
  }

  private unstableRateAt(t: number): number {
    const times = this.errTimes;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    const n = lo;
    if (n < 2) return 0;
    const mean = this.errSum[n - 1]! / n;
    const variance = Math.max(0, this.errSq[n - 1]! / n - mean * mean);
    return (Math.sqrt(variance) * 10) / this.speed;
  }
}

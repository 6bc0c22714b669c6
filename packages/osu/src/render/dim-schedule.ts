/**
 * How dark the background is at each moment, as the game dims it: the intro dim until
 * the first object appears, the in-game dim while playing, the break dim inside break
 * periods, with half-second fades between them (render options intro/in-game/break dim).
 */
import type { BreakPeriod } from '../beatmap/types.js';

/** Fade between two dims (real-time ms). */
const FADE_MS = 500;

export interface DimAt {
  /** Dim at this moment, 0..1. */
  value: number;
  /** The steady dims it lies between, and how far from `from` to `to` (0..1). */
  from: number;
  to: number;
  mix: number;
}

export class DimSchedule {
  private readonly fade: number;

  constructor(
    readonly inGame: number,
    readonly intro: number,
    readonly breakDim: number,
    /** Map time the first object appears (the intro ends there). */
    private readonly playStart: number,
    private readonly breaks: readonly BreakPeriod[],
    speed: number,
  ) {
    this.fade = FADE_MS * speed;
  }

  /** The steady dims this schedule uses (for drawing each once). */
  levels(): number[] {
    const used = [this.inGame];
    if (this.intro !== this.inGame) used.push(this.intro);
    if (this.breaks.length > 0 && this.breakDim !== this.inGame) used.push(this.breakDim);
    return [...new Set(used)];
  }

  at(t: number): DimAt {
    if (t < this.playStart) {
      const p = (t - (this.playStart - this.fade)) / this.fade;
      return this.between(this.intro, this.inGame, p);
    }
    for (const b of this.breaks) {
      if (t < b.start || t > b.end) continue;
      // a break too short for both fades dims only as far as it can
      const p = Math.min((t - b.start) / this.fade, (b.end - t) / this.fade);
      return this.between(this.inGame, this.breakDim, p);
    }
    return { value: this.inGame, from: this.inGame, to: this.inGame, mix: 0 };
  }

  private between(from: number, to: number, p: number): DimAt {
    // steady at either end: one background to draw
    if (p <= 0) return { value: from, from, to: from, mix: 0 };
    if (p >= 1) return { value: to, from: to, to, mix: 0 };
    return { value: from + (to - from) * p, from, to, mix: p };
  }
}

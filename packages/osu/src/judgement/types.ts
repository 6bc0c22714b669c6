/** What judging a replay produces: counts, combo, hit errors and a timeline for drawing. */
export type HitResult = 300 | 100 | 50 | 0;

export interface JudgementEvent {
  /** When the judgement happened (ms, map time). */
  time: number;
  objectIndex: number;
  /** 300/100/50/0 for an object's final result; 'tick' parts and slider breaks for the drawing. */
  kind: 'hit' | 'sliderbreak' | 'tick' | 'head';
  result: HitResult;
  x: number;
  y: number;
  /** Combo after this event. */
  combo: number;
  score: number;
  accuracy: number;
}

export interface JudgementSummary {
  n300: number;
  n100: number;
  n50: number;
  misses: number;
  maxCombo: number;
  /** Unstable rate (10 x standard deviation of hit errors, in real-time ms). */
  unstableRate: number;
  accuracy: number;
  score: number;
}

export interface JudgementResult extends JudgementSummary {
  /** Hit error (ms, map time, negative = early) of every circle and slider head hit. */
  hitErrors: number[];
  /** Map time of each entry of hitErrors. */
  hitErrorTimes: number[];
  events: JudgementEvent[];
  /** Result per object (by index). */
  objectResults: HitResult[];
  /** When each object's head was hit or missed (ms), for fading out. */
  headJudgedAt: number[];
  /** Whether each object's head (circle or slider head) was hit. */
  headHit: boolean[];
  /** Each spinner's spinning as the play went (by object index), for drawing it. */
  spins?: Map<number, SpinTrack>;
}

export interface SpinTrack {
  /** Map times of the replay frames during the spinner, and the rotations counted by then (radians, signed). */
  times: number[];
  angles: number[];
  /** Full turns the spinner needs for a 300. */
  needed: number;
}

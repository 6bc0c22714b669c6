/** One replay frame: absolute time (ms, map time), cursor position (osu! pixels), keys. */
export interface ReplayFrame {
  /** Absolute time in ms (sum of the deltas). */
  time: number;
  /** Delta from the previous frame, as stored. */
  delta: number;
  x: number;
  y: number;
  /** Key bitmask: M1=1, M2=2, K1=4 (with M1), K2=8 (with M2), Smoke=16. */
  keys: number;
}

/** One point of the life bar graph. */
export interface LifeBarPoint {
  time: number;
  life: number;
}

export interface Replay {
  /** 0 osu!, 1 taiko, 2 catch, 3 mania. */
  mode: number;
  version: number;
  beatmapMd5: string;
  playerName: string;
  replayMd5: string;
  n300: number;
  n100: number;
  n50: number;
  gekis: number;
  katus: number;
  misses: number;
  score: number;
  maxCombo: number;
  perfect: boolean;
  /** Mods bitmask. */
  mods: number;
  /** Raw life bar string ("time|life,..."). */
  lifeBar: string;
  lifeBarPoints: LifeBarPoint[];
  timestamp: Date;
  /** Windows ticks as stored (exact), for re-encoding. */
  timestampTicks: bigint;
  /** Playable frames (the seed frame and the leading skip frames removed). */
  frames: ReplayFrame[];
  /** The RNG seed written in the last frame (-12345|0|0|seed), when present. */
  seed: number | undefined;
  /** Frames as stored, including the seed frame, for exact re-encoding. */
  rawFrames: ReplayFrame[];
  onlineScoreId: bigint;
  /** Target Practice total accuracy, only when that mod is set. */
  targetPracticeAccuracy: number | undefined;
  /** The lazer score-info block (decoded JSON), when present. */
  scoreInfo: Record<string, unknown> | undefined;
}

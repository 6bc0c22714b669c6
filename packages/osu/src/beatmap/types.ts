/** Parsed .osu beatmap. Times in ms, positions in osu! pixels (512x384 playfield). */
export interface BeatmapMetadata {
  title: string;
  titleUnicode: string;
  artist: string;
  artistUnicode: string;
  creator: string;
  /** Difficulty name. */
  version: string;
  source: string;
  tags: string;
  beatmapId: number;
  beatmapSetId: number;
}

export interface BeatmapDifficulty {
  hp: number;
  cs: number;
  od: number;
  ar: number;
  sliderMultiplier: number;
  sliderTickRate: number;
}

export interface TimingPoint {
  time: number;
  beatLength: number;
  meter: number;
  sampleSet: number;
  sampleIndex: number;
  volume: number;
  uninherited: boolean;
  kiai: boolean;
}

export interface BreakPeriod {
  start: number;
  end: number;
}

export type CurveType = 'L' | 'P' | 'B' | 'C';

export interface Vec2 {
  x: number;
  y: number;
}

export interface SliderData {
  curveType: CurveType;
  /** Control points including the head. */
  controlPoints: Vec2[];
  /** Number of spans (1 = no repeat). */
  slides: number;
  pixelLength: number;
  /** The path as a polyline (relative to nothing: absolute osu! pixels), cut to pixelLength. */
  path: Vec2[];
  /** Cumulative length at each path point. */
  cumulative: number[];
  spanDuration: number;
  /** Velocity in osu! pixels per ms. */
  velocity: number;
  tickDistance: number;
  /** Hitsound bits (1 normal, 2 whistle, 4 finish, 8 clap) of each edge: head, repeats, end. */
  edgeSounds: number[];
  /** Normal and addition sample set of each edge (0 = inherit). */
  edgeSets: [number, number][];
}

/** An object's hit-sample field: `normalSet:additionSet:index:volume:filename`; 0 / '' inherit. */
export interface HitSample {
  /** 0 inherit, 1 normal, 2 soft, 3 drum. */
  normalSet: number;
  additionSet: number;
  /** Custom sample index; 0 takes the timing point's. */
  index: number;
  /** 0 to 100; 0 takes the timing point's. */
  volume: number;
  /** A file in the beatmap folder played instead of the normal sound. */
  filename: string;
}

export interface HitObject {
  kind: 'circle' | 'slider' | 'spinner' | 'hold';
  x: number;
  y: number;
  time: number;
  endTime: number;
  newCombo: boolean;
  comboSkip: number;
  hitSound: number;
  hitSample: HitSample;
  /** Index in the beatmap's combo colours (after skips), from 0. */
  comboIndex: number;
  /** Number shown on the circle, from 1. */
  comboNumber: number;
  slider: SliderData | undefined;
}

export interface StoryboardCommand {
  /** F, M, MX, MY, S, V, R, C, P, L (loop), T (trigger). */
  type: string;
  easing: number;
  start: number;
  end: number;
  params: number[];
  /** P parameter: H, V or A. */
  flag: string;
  /** Loop count (L) or trigger name (T). */
  loopCount: number;
  children: StoryboardCommand[];
}

export interface StoryboardElement {
  kind: 'sprite' | 'animation';
  layer: string;
  origin: string;
  file: string;
  x: number;
  y: number;
  frameCount: number;
  frameDelay: number;
  loopForever: boolean;
  commands: StoryboardCommand[];
}

export interface BeatmapEvents {
  backgroundFilename: string | undefined;
  videoFilename: string | undefined;
  videoOffset: number;
  breaks: BreakPeriod[];
  storyboard: StoryboardElement[];
}

export interface Beatmap {
  formatVersion: number;
  general: Record<string, string>;
  audioFilename: string;
  audioLeadIn: number;
  stackLeniency: number;
  mode: number;
  metadata: BeatmapMetadata;
  difficulty: BeatmapDifficulty;
  events: BeatmapEvents;
  /** Shortcut to events.backgroundFilename. */
  backgroundFilename: string | undefined;
  timingPoints: TimingPoint[];
  /** Combo colours as [r, g, b]; empty when the map has none. */
  comboColours: [number, number, number][];
  sliderBorder: [number, number, number] | undefined;
  sliderTrackOverride: [number, number, number] | undefined;
  hitObjects: HitObject[];
}

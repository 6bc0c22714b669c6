/**
 * osu!standard star rating and the attributes performance needs (our port of
 * OsuDifficultyCalculator, difficulty calculator version 20250306: the March 2025 release),
 * for the whole map or, as the play goes, for the objects up to each one (what the game's
 * timed attributes give a PP counter).
 */
import { difficultyRange, type PlayableBeatmap } from '../beatmap/playable.js';
import { Mods } from '../replay/mods.js';
import { DifficultyObject, type DifficultyMap } from './difficulty-object.js';
import { AimSkill, FlashlightSkill, SpeedSkill } from './skills.js';

export const DIFFICULTY_VERSION = 20250306;
export const PERFORMANCE_BASE_MULTIPLIER = 1.15;
const STAR_RATING_MULTIPLIER = 0.027;
const DIFFICULTY_MULTIPLIER = 0.0675;

export interface DifficultyAttributes {
  starRating: number;
  aim: number;
  speed: number;
  flashlight: number;
  sliderFactor: number;
  speedNoteCount: number;
  aimDifficultSliderCount: number;
  aimDifficultStrainCount: number;
  speedDifficultStrainCount: number;
  maxCombo: number;
  hitCircleCount: number;
  sliderCount: number;
  spinnerCount: number;
}

export function difficultyToPerformance(difficulty: number): number {
  return (5 * Math.max(1, difficulty / 0.0675) - 4) ** 3 / 100000;
}

const rating = (value: number): number => Math.sqrt(value) * DIFFICULTY_MULTIPLIER;

function starRating(basePerformance: number): number {
  if (basePerformance <= 0.00001) return 0;
  return (
    Math.cbrt(PERFORMANCE_BASE_MULTIPLIER) *
    STAR_RATING_MULTIPLIER *
    (Math.cbrt((100000 / 2 ** (1 / 1.1)) * basePerformance) + 4)
  );
}

/** Lazer's circle radius for a circle size (with its legacy fudge factor). */
export function lazerRadius(cs: number): number {
  return 64 * Math.fround(Math.fround((1 - (0.7 * (cs - 5)) / 5) / 2) * 1.00041);
}

/** Half the 300 window of lazer's hit windows (ms, map time). */
export function greatWindow(od: number): number {
  return difficultyRange(od, 80, 50, 20);
}

/** Combo an object gives at most: circle and spinner 1, slider head, ticks, repeats and tail. */
function objectCombo(o: PlayableBeatmap['objects'][number]): number {
  if (o.kind !== 'slider') return 1;
  return 2 + o.events.filter((e) => e.kind === 'tick' || e.kind === 'repeat').length;
}

/**
 * Processes a play's objects in order; `attributes()` gives the attributes of the objects
 * processed so far.
 */
export class DifficultyCalculator {
  readonly clockRate: number;
  private readonly map: DifficultyMap;
  private readonly objects: DifficultyObject[] = [];
  private readonly aim = new AimSkill(true);
  private readonly aimNoSliders = new AimSkill(false);
  private readonly speed: SpeedSkill;
  private readonly flashlight: FlashlightSkill | undefined;
  private processed = 0;
  private counts = { circles: 0, sliders: 0, spinners: 0, combo: 0 };

  constructor(
    private readonly play: PlayableBeatmap,
    private readonly mods: number,
  ) {
    this.clockRate = play.speed;
    const radius = lazerRadius(play.cs);
    this.map = {
      objects: play.objects,
      radius,
      preempt: play.preempt,
      fadeIn: 400 * Math.min(1, play.preempt / 450),
      greatWindow: greatWindow(play.od),
    };
    this.speed = new SpeedSkill((mods & Mods.Autopilot) !== 0);
    if (mods & Mods.Flashlight)
      this.flashlight = new FlashlightSkill((mods & Mods.Hidden) !== 0, radius);
  }

  /** Objects processed so far. */
  get count(): number {
    return this.processed;
  }

  /** Takes the next object of the play into account. */
  step(): void {
    const objs = this.play.objects;
    const i = this.processed++;
    const o = objs[i]!;
    if (o.kind === 'slider') this.counts.sliders++;
    else if (o.kind === 'spinner') this.counts.spinners++;
    else this.counts.circles++;
    this.counts.combo += objectCombo(o);
    if (i === 0) return;
    const d = new DifficultyObject(
      o,
      objs[i - 1]!,
      objs[i - 2],
      this.map,
      this.clockRate,
      this.objects,
      this.objects.length,
    );
    this.objects.push(d);
    this.aim.process(d);
    this.aimNoSliders.process(d);
    this.speed.process(d);
    this.flashlight?.process(d);
  }

  attributes(): DifficultyAttributes {
    const has = (m: number): boolean => (this.mods & m) !== 0;
    const aimValue = this.aim.difficultyValue();
    const speedValue = this.speed.difficultyValue();
    let aim = rating(aimValue);
    let speed = rating(speedValue);
    let flashlight = this.flashlight ? rating(this.flashlight.difficultyValue()) : 0;
    const sliderFactor = aim > 0 ? rating(this.aimNoSliders.difficultyValue()) / aim : 1;
    const aimStrains = this.aim.countTopWeightedStrains(aimValue);
    const speedStrains = this.speed.countTopWeightedStrains(speedValue);
    if (has(Mods.TouchDevice)) {
      aim = aim ** 0.8;
      flashlight = flashlight ** 0.8;
    }
    if (has(Mods.Relax)) {
      aim *= 0.9;
      speed = 0;
      flashlight *= 0.7;
    } else if (has(Mods.Autopilot)) {
      speed *= 0.5;
      aim = 0;
      flashlight *= 0.4;
    }
    const base =
      (difficultyToPerformance(aim) ** 1.1 +
        difficultyToPerformance(speed) ** 1.1 +
        (this.flashlight ? 25 * flashlight ** 2 : 0) ** 1.1) **
      (1 / 1.1);
    return {
      starRating: starRating(base),
      aim,
      speed,
      flashlight,
      sliderFactor,
      speedNoteCount: this.speed.relevantNoteCount(),
      aimDifficultSliderCount: this.aim.difficultSliders(),
      aimDifficultStrainCount: aimStrains,
      speedDifficultStrainCount: speedStrains,
      maxCombo: this.counts.combo,
      hitCircleCount: this.counts.circles,
      sliderCount: this.counts.sliders,
      spinnerCount: this.counts.spinners,
    };
  }
}

/** Star rating of a whole play's map with its mods. */
export function calculateDifficulty(play: PlayableBeatmap): DifficultyAttributes {
  const calc = new DifficultyCalculator(play, play.mods);
  for (let i = 0; i < play.objects.length; i++) calc.step();
  return calc.attributes();
}

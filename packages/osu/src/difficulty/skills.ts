/**
 * Strain skills: each object's difficulty accumulates into a decaying strain, the peak of
 * each 400 ms section is kept, and the peaks are summed with decaying weights (our port
 * of StrainSkill, OsuStrainSkill, Aim, Speed and Flashlight, difficulty calculator
 * version 20250306).
 */
import type { DifficultyObject } from './difficulty-object.js';
import {
  aimDifficulty,
  flashlightDifficulty,
  rhythmDifficulty,
  speedDifficulty,
} from './evaluators.js';
import { lerp } from './maths.js';

const SECTION_LENGTH = 400;
const DECAY_WEIGHT = 0.9;

export abstract class StrainSkill {
  protected readonly objectStrains: number[] = [];
  private readonly peaks: number[] = [];
  private sectionPeak = 0;
  private sectionEnd = 0;

  process(current: DifficultyObject): void {
    if (current.index === 0)
      this.sectionEnd = Math.ceil(current.startTime / SECTION_LENGTH) * SECTION_LENGTH;
    while (current.startTime > this.sectionEnd) {
      this.peaks.push(this.sectionPeak);
      this.sectionPeak = this.initialStrain(this.sectionEnd, current);
      this.sectionEnd += SECTION_LENGTH;
    }
    const strain = this.strainAt(current);
    this.sectionPeak = Math.max(strain, this.sectionPeak);
    this.objectStrains.push(strain);
  }

  protected abstract strainAt(current: DifficultyObject): number;
  protected abstract initialStrain(time: number, current: DifficultyObject): number;

  /** Section peaks so far, the current section's included. */
  protected currentPeaks(): number[] {
    return [...this.peaks, this.sectionPeak];
  }

  difficultyValue(): number {
    let difficulty = 0;
    let weight = 1;
    for (const p of this.currentPeaks()
      .filter((x) => x > 0)
      .sort((a, b) => b - a)) {
      difficulty += p * weight;
      weight *= DECAY_WEIGHT;
    }
    return difficulty;
  }

  countTopWeightedStrains(difficulty = this.difficultyValue()): number {
    if (this.objectStrains.length === 0) return 0;
    const consistentTop = difficulty / 10;
    if (consistentTop === 0) return this.objectStrains.length;
    let sum = 0;
    for (const s of this.objectStrains)
      sum += 1.1 / (1 + Math.exp(-10 * (s / consistentTop - 0.88)));
    return sum;
  }
}

/** OsuStrainSkill: the hardest sections count a little less (they are likely outliers). */
abstract class OsuStrainSkill extends StrainSkill {
  protected reducedSectionCount = 10;

  override difficultyValue(): number {
    const strains = this.currentPeaks()
      .filter((x) => x > 0)
      .sort((a, b) => b - a);
    const n = this.reducedSectionCount;
    for (let i = 0; i < Math.min(strains.length, n); i++) {
      // (float)i / n in the game: single precision
      const scale = Math.log10(lerp(1, 10, Math.min(1, Math.max(0, Math.fround(i / n)))));
      strains[i]! *= lerp(0.75, 1, scale);
    }
    strains.sort((a, b) => b - a);
    let difficulty = 0;
    let weight = 1;
    for (const s of strains) {
      difficulty += s * weight;
      weight *= DECAY_WEIGHT;
    }
    return difficulty;
  }
}

/** Probability-like count of strains close to the hardest one. */
function relevantCount(strains: readonly number[]): number {
  if (strains.length === 0) return 0;
  // a loop, not Math.max(...strains): a crafted map's hundreds of thousands of strains
  let max = 0;
  for (const s of strains) if (s > max) max = s;
  if (max === 0) return 0;
  let sum = 0;
  for (const s of strains) sum += 1 / (1 + Math.exp(-((s / max) * 12 - 6)));
  return sum;
}

export class AimSkill extends OsuStrainSkill {
  private strain = 0;
  private readonly sliderStrains: number[] = [];
  constructor(readonly includeSliders: boolean) {
    super();
  }
  protected strainAt(current: DifficultyObject): number {
    this.strain *= 0.15 ** (current.deltaTime / 1000);
    this.strain += aimDifficulty(current, this.includeSliders) * 25.6;
    if (current.base.kind === 'slider') this.sliderStrains.push(this.strain);
    return this.strain;
  }
  protected initialStrain(time: number, current: DifficultyObject): number {
    return this.strain * 0.15 ** ((time - current.previous(0)!.startTime) / 1000);
  }
  difficultSliders(): number {
    return relevantCount(this.sliderStrains);
  }
}

export class SpeedSkill extends OsuStrainSkill {
  private strain = 0;
  private rhythm = 0;
  constructor(private readonly autopilot: boolean) {
    super();
    this.reducedSectionCount = 5;
  }
  protected strainAt(current: DifficultyObject): number {
    this.strain *= 0.3 ** (current.strainTime / 1000);
    this.strain += speedDifficulty(current, this.autopilot) * 1.46;
    this.rhythm = rhythmDifficulty(current);
    return this.strain * this.rhythm;
  }
  protected initialStrain(time: number, current: DifficultyObject): number {
    return this.strain * this.rhythm * 0.3 ** ((time - current.previous(0)!.startTime) / 1000);
  }
  relevantNoteCount(): number {
    return relevantCount(this.objectStrains);
  }
}

export class FlashlightSkill extends StrainSkill {
  private strain = 0;
  constructor(
    private readonly hidden: boolean,
    private readonly radius: number,
  ) {
    super();
  }
  protected strainAt(current: DifficultyObject): number {
    this.strain *= 0.15 ** (current.deltaTime / 1000);
    this.strain += flashlightDifficulty(current, this.hidden, this.radius) * 0.05512;
    return this.strain;
  }
  protected initialStrain(time: number, current: DifficultyObject): number {
    return this.strain * 0.15 ** ((time - current.previous(0)!.startTime) / 1000);
  }
  override difficultyValue(): number {
    return this.currentPeaks().reduce((a, b) => a + b, 0);
  }
}

/**
 * Performance points of an osu!standard play (our port of OsuPerformanceCalculator at
 * difficulty calculator version 20250306) for a stable play: classic slider accuracy
 * (slider heads give no accuracy of their own; misses are estimated from the combo, as
 * the game does for a score without lazer's slider statistics).
 */
import { difficultyRange } from '../beatmap/playable.js';
import { Mods } from '../replay/mods.js';
import {
  difficultyToPerformance,
  PERFORMANCE_BASE_MULTIPLIER,
  type DifficultyAttributes,
} from './difficulty-calculator.js';
import { erf, erfInv, lerp, reverseLerp } from './maths.js';

export interface PlayScore {
  n300: number;
  n100: number;
  n50: number;
  misses: number;
  maxCombo: number;
}

export interface PerformanceAttributes {
  pp: number;
  aim: number;
  speed: number;
  accuracy: number;
  flashlight: number;
  effectiveMissCount: number;
  speedDeviation: number | undefined;
}

export interface PlayDifficulty {
  /** Approach rate and overall difficulty after HR/EZ (not the clock rate). */
  ar: number;
  od: number;
  /** Clock rate of the mods (DT 1.5, HT 0.75). */
  clockRate: number;
  mods: number;
}

export function calculatePerformance(
  attributes: DifficultyAttributes,
  score: PlayScore,
  play: PlayDifficulty,
): PerformanceAttributes {
  const a = attributes;
  const { n300, n100, n50, misses } = score;
  const mods = play.mods;
  const has = (m: number): boolean => (mods & m) !== 0;
  const totalHits = n300 + n100 + n50 + misses;
  const totalSuccessful = n300 + n100 + n50;
  const totalImperfect = n100 + n50 + misses;
  const accuracy = totalHits > 0 ? (300 * n300 + 100 * n100 + 50 * n50) / (300 * totalHits) : 0;
  const clock = play.clockRate;
  const greatWindow = difficultyRange(play.od, 80, 50, 20) / clock;
  const okWindow = difficultyRange(play.od, 140, 100, 60) / clock;
  const mehWindow = difficultyRange(play.od, 200, 150, 100) / clock;
  const preempt = difficultyRange(play.ar, 1800, 1200, 450) / clock;
  const od = (80 - greatWindow) / 6;
  const ar = preempt > 1200 ? (1800 - preempt) / 120 : (1200 - preempt) / 150 + 5;

  // misses estimated from the combo: stable scores do not say which sliders broke
  let effectiveMissCount = misses;
  if (a.sliderCount > 0) {
    const fullComboThreshold = a.maxCombo - 0.1 * a.sliderCount;
    if (score.maxCombo < fullComboThreshold)
      effectiveMissCount = fullComboThreshold / Math.max(1, score.maxCombo);
    effectiveMissCount = Math.min(effectiveMissCount, totalImperfect);
  }
  effectiveMissCount = Math.min(totalHits, Math.max(misses, effectiveMissCount));

  let multiplier = PERFORMANCE_BASE_MULTIPLIER;
  if (has(Mods.NoFail)) multiplier *= Math.max(0.9, 1 - 0.02 * effectiveMissCount);
  if (has(Mods.SpunOut) && totalHits > 0) multiplier *= 1 - (a.spinnerCount / totalHits) ** 0.85;
  if (has(Mods.Relax)) {
    const okMultiplier = Math.max(0, od > 0 ? 1 - (od / 13.33) ** 1.8 : 1);
    const mehMultiplier = Math.max(0, od > 0 ? 1 - (od / 13.33) ** 5 : 1);
    effectiveMissCount = Math.min(
      effectiveMissCount + n100 * okMultiplier + n50 * mehMultiplier,
      totalHits,
    );
  }

  const lengthBonus =
    0.95 +
    0.4 * Math.min(1, totalHits / 2000) +
    (totalHits > 2000 ? Math.log10(totalHits / 2000) * 0.5 : 0);
  const missPenalty = (strainCount: number): number =>
    0.96 / (effectiveMissCount / (4 * Math.log(strainCount) ** 0.94) + 1);

  const speedDeviation = ((): number | undefined => {
    if (totalSuccessful === 0) return undefined;
    const notes = a.speedNoteCount + (totalHits - a.speedNoteCount) * 0.1;
    const relMiss = Math.min(misses, notes);
    const relMeh = Math.min(n50, notes - relMiss);
    const relOk = Math.min(n100, notes - relMiss - relMeh);
    const relGreat = Math.max(0, notes - relMiss - relMeh - relOk);
    return deviation(relGreat, relOk, relMeh, relMiss, greatWindow, okWindow, mehWindow);
  })();

  // aim
  let aim = 0;
  if (!has(Mods.Autopilot)) {
    let aimDifficulty = a.aim;
    if (a.sliderCount > 0 && a.aimDifficultSliderCount > 0) {
      const dropped = Math.min(
        Math.max(Math.min(totalImperfect, a.maxCombo - score.maxCombo), 0),
        a.aimDifficultSliderCount,
      );
      aimDifficulty *=
        (1 - a.sliderFactor) * (1 - dropped / a.aimDifficultSliderCount) ** 3 + a.sliderFactor;
    }
    aim = difficultyToPerformance(aimDifficulty) * lengthBonus;
    if (effectiveMissCount > 0) aim *= missPenalty(a.aimDifficultStrainCount);
    let arFactor = 0;
    if (ar > 10.33) arFactor = 0.3 * (ar - 10.33);
    else if (ar < 8) arFactor = 0.05 * (8 - ar);
    if (has(Mods.Relax)) arFactor = 0;
    aim *= 1 + arFactor * lengthBonus;
    if (has(Mods.Hidden)) aim *= 1 + 0.04 * (12 - ar);
    aim *= accuracy;
    aim *= 0.98 + Math.max(0, od) ** 2 / 2500;
  }

  // speed
  let speed = 0;
  if (!has(Mods.Relax) && speedDeviation !== undefined) {
    speed = difficultyToPerformance(a.speed) * lengthBonus;
    if (effectiveMissCount > 0) speed *= missPenalty(a.speedDifficultStrainCount);
    let arFactor = ar > 10.33 ? 0.3 * (ar - 10.33) : 0;
    if (has(Mods.Autopilot)) arFactor = 0;
    speed *= 1 + arFactor * lengthBonus;
    if (has(Mods.Hidden)) speed *= 1 + 0.04 * (12 - ar);
    speed *= highDeviationNerf(difficultyToPerformance(a.speed), speedDeviation);
    const relevantTotalDiff = Math.max(0, totalHits - a.speedNoteCount);
    const relGreat = Math.max(0, n300 - relevantTotalDiff);
    const relOk = Math.max(0, n100 - Math.max(0, relevantTotalDiff - n300));
    const relMeh = Math.max(0, n50 - Math.max(0, relevantTotalDiff - n300 - n100));
    const relevantAccuracy =
      a.speedNoteCount === 0 ? 0 : (relGreat * 6 + relOk * 2 + relMeh) / (a.speedNoteCount * 6);
    speed *=
      (0.95 + Math.max(0, od) ** 2 / 750) *
      ((accuracy + relevantAccuracy) / 2) ** ((14.5 - od) / 2);
  }

  // accuracy: circles only (classic slider accuracy)
  let acc = 0;
  if (!has(Mods.Relax)) {
    const withAccuracy = a.hitCircleCount;
    let better =
      withAccuracy > 0
        ? ((n300 - Math.max(totalHits - withAccuracy, 0)) * 6 + n100 * 2 + n50) / (withAccuracy * 6)
        : 0;
    if (better < 0) better = 0;
    acc = 1.52163 ** od * better ** 24 * 2.83;
    acc *= Math.min(1.15, (withAccuracy / 1000) ** 0.3);
    if (has(Mods.Hidden)) acc *= 1.08;
    if (has(Mods.Flashlight)) acc *= 1.02;
  }

  // flashlight
  let flashlight = 0;
  if (has(Mods.Flashlight)) {
    flashlight = 25 * a.flashlight ** 2;
    if (effectiveMissCount > 0)
      flashlight *=
        0.97 * (1 - (effectiveMissCount / totalHits) ** 0.775) ** (effectiveMissCount ** 0.875);
    flashlight *= a.maxCombo <= 0 ? 1 : Math.min(score.maxCombo ** 0.8 / a.maxCombo ** 0.8, 1);
    flashlight *=
      0.7 +
      0.1 * Math.min(1, totalHits / 200) +
      (totalHits > 200 ? 0.2 * Math.min(1, (totalHits - 200) / 200) : 0);
    flashlight *= 0.5 + accuracy / 2;
    flashlight *= 0.98 + Math.max(0, od) ** 2 / 2500;
  }

  const pp = (aim ** 1.1 + speed ** 1.1 + acc ** 1.1 + flashlight ** 1.1) ** (1 / 1.1) * multiplier;
  return { pp, aim, speed, accuracy: acc, flashlight, effectiveMissCount, speedDeviation };
}

/** Estimated standard deviation of the hit errors, from the counts (the game's estimate). */
function deviation(
  great: number,
  ok: number,
  meh: number,
  miss: number,
  greatWindow: number,
  okWindow: number,
  mehWindow: number,
): number | undefined {
  if (great + ok + meh <= 0) return undefined;
  const objectCount = great + ok + meh + miss;
  const n = Math.max(1, objectCount - miss - meh);
  const z = 2.32634787404;
  const p = great / n;
  const pLower =
    (n * p + (z * z) / 2) / (n + z * z) -
    (z / (n + z * z)) * Math.sqrt(n * p * (1 - p) + (z * z) / 4);
  let d = greatWindow / (Math.SQRT2 * erfInv(pLower));
  const randomValue =
    (Math.sqrt(2 / Math.PI) * okWindow * Math.exp(-0.5 * (okWindow / d) ** 2)) /
    (d * erf(okWindow / (Math.SQRT2 * d)));
  d *= Math.sqrt(1 - randomValue);
  const limit = okWindow / Math.sqrt(3);
  if (pLower === 0 || randomValue >= 1 || d > limit) d = limit;
  const mehVariance = (mehWindow * mehWindow + okWindow * mehWindow + okWindow * okWindow) / 3;
  return Math.sqrt(((great + ok) * d ** 2 + meh * mehVariance) / (great + ok + meh));
}

function highDeviationNerf(speedValue: number, deviation: number): number {
  const cutoff = 100 + 220 * (22 / deviation) ** 6.5;
  if (speedValue <= cutoff) return 1;
  const scale = 50;
  let adjusted = scale * (Math.log((speedValue - cutoff) / scale + 1) + cutoff / scale);
  adjusted = lerp(adjusted, speedValue, 1 - reverseLerp(deviation, 22, 27));
  return adjusted / speedValue;
}

/**
 * The difficulty of one object for each skill: aim, speed, rhythm and flashlight (our
 * port of osu.Game.Rulesets.Osu/Difficulty/Evaluators, difficulty calculator version
 * 20250306; the constants are the game's).
 */
import {
  NORMALISED_DIAMETER,
  NORMALISED_RADIUS,
  MIN_DELTA_TIME,
  type DifficultyObject,
} from './difficulty-object.js';
import { logistic, reverseLerp, smoothstep, smootherstep } from './maths.js';

const deg = (d: number): number => (d * Math.PI) / 180;
const msToBpm = (ms: number, delimiter = 4): number => 60000 / (ms * delimiter);
const bpmToMs = (bpm: number, delimiter = 4): number => 60000 / delimiter / bpm;

const wideAngleBonus = (a: number): number => smoothstep(a, deg(40), deg(140));
const acuteAngleBonus = (a: number): number => smoothstep(a, deg(140), deg(40));

export function aimDifficulty(current: DifficultyObject, withSliders: boolean): number {
  const last = current.previous(0);
  const lastLast = current.previous(1);
  if (current.base.kind === 'spinner' || current.index <= 1 || !last || !lastLast) return 0;
  if (last.base.kind === 'spinner') return 0;
  const radius = NORMALISED_RADIUS;
  const diameter = NORMALISED_DIAMETER;

  let currVelocity = current.lazyJumpDistance / current.strainTime;
  if (last.base.kind === 'slider' && withSliders) {
    const travel = last.travelDistance / last.travelTime;
    const movement = current.minimumJumpDistance / current.minimumJumpTime;
    currVelocity = Math.max(currVelocity, movement + travel);
  }
  let prevVelocity = last.lazyJumpDistance / last.strainTime;
  if (lastLast.base.kind === 'slider' && withSliders) {
    const travel = lastLast.travelDistance / lastLast.travelTime;
    const movement = last.minimumJumpDistance / last.minimumJumpTime;
    prevVelocity = Math.max(prevVelocity, movement + travel);
  }

  let wide = 0;
  let acute = 0;
  let sliderBonus = 0;
  let velocityChange = 0;
  let wiggle = 0;
  let strain = currVelocity;
  const dtMax = Math.max(current.strainTime, last.strainTime);
  const dtMin = Math.min(current.strainTime, last.strainTime);

  // angle bonuses only where the rhythm stays the same
  if (dtMax < 1.25 * dtMin && current.angle !== undefined && last.angle !== undefined) {
    const currAngle = current.angle;
    const lastAngle = last.angle;
    const angleBonus = Math.min(currVelocity, prevVelocity);
    wide = wideAngleBonus(currAngle);
    acute = acuteAngleBonus(currAngle);
    wide *= 1 - Math.min(wide, wideAngleBonus(lastAngle) ** 3);
    acute *= 0.08 + 0.92 * (1 - Math.min(acute, acuteAngleBonus(lastAngle) ** 3));
    wide *= angleBonus * smootherstep(current.lazyJumpDistance, 0, diameter);
    acute *=
      angleBonus *
      smootherstep(msToBpm(current.strainTime, 2), 300, 400) *
      smootherstep(current.lazyJumpDistance, diameter, diameter * 2);
    wiggle =
      angleBonus *
      smootherstep(current.lazyJumpDistance, radius, diameter) *
      reverseLerp(current.lazyJumpDistance, diameter * 3, diameter) ** 1.8 *
      smootherstep(currAngle, deg(110), deg(60)) *
      smootherstep(last.lazyJumpDistance, radius, diameter) *
      reverseLerp(last.lazyJumpDistance, diameter * 3, diameter) ** 1.8 *
      smootherstep(lastAngle, deg(110), deg(60));
  }

  if (Math.max(prevVelocity, currVelocity) !== 0) {
    prevVelocity = (last.lazyJumpDistance + lastLast.travelDistance) / last.strainTime;
    currVelocity = (current.lazyJumpDistance + last.travelDistance) / current.strainTime;
    const distRatio =
      Math.sin(
        ((Math.PI / 2) * Math.abs(prevVelocity - currVelocity)) /
          Math.max(prevVelocity, currVelocity),
      ) ** 2;
    const overlapBuff = Math.min((diameter * 1.25) / dtMin, Math.abs(prevVelocity - currVelocity));
    velocityChange = overlapBuff * distRatio * (dtMin / dtMax) ** 2;
  }
  if (last.base.kind === 'slider') sliderBonus = last.travelDistance / last.travelTime;

  strain += wiggle * 1.02;
  strain += Math.max(acute * 2.6, wide * 1.5 + velocityChange * 0.75);
  if (withSliders) strain += sliderBonus * 1.35;
  return strain;
}

const SINGLE_SPACING = NORMALISED_DIAMETER * 1.25;

export function speedDifficulty(current: DifficultyObject, autopilot: boolean): number {
  if (current.base.kind === 'spinner') return 0;
  const prev = current.index > 0 ? current.previous(0) : undefined;
  let strainTime = current.strainTime;
  const doubletapness = 1 - current.doubletapness(current.next(0));
  strainTime /= Math.min(1, Math.max(0.92, strainTime / current.hitWindowGreat / 0.93));
  let speedBonus = 0;
  if (msToBpm(strainTime) > 200) speedBonus = 0.75 * ((bpmToMs(200) - strainTime) / 40) ** 2;
  const travel = prev?.travelDistance ?? 0;
  const distance = Math.min(travel + current.minimumJumpDistance, SINGLE_SPACING);
  let distanceBonus = (distance / SINGLE_SPACING) ** 3.95 * 0.9;
  if (autopilot) distanceBonus = 0;
  return (((1 + speedBonus + distanceBonus) * 1000) / strainTime) * doubletapness;
}

const HISTORY_TIME_MAX = 5000;
const HISTORY_OBJECTS_MAX = 32;

/** A run of (nearly) equal gaps between notes. */
class Island {
  delta = Number.MAX_SAFE_INTEGER;
  deltaCount = 0;
  constructor(
    private readonly epsilon: number,
    delta?: number,
  ) {
    if (delta !== undefined) {
      this.delta = Math.max(delta, MIN_DELTA_TIME);
      this.deltaCount++;
    }
  }
  addDelta(delta: number): void {
    if (this.delta === Number.MAX_SAFE_INTEGER) this.delta = Math.max(delta, MIN_DELTA_TIME);
    this.deltaCount++;
  }
  similarPolarity(other: Island): boolean {
    return this.deltaCount % 2 === other.deltaCount % 2;
  }
  equals(other: Island): boolean {
    return (
      Math.abs(this.delta - other.delta) < this.epsilon && this.deltaCount === other.deltaCount
    );
  }
}

export function rhythmDifficulty(current: DifficultyObject): number {
  if (current.base.kind === 'spinner') return 0;
  let sum = 0;
  const epsilon = current.hitWindowGreat * 0.3;
  let island = new Island(epsilon);
  let previousIsland = new Island(epsilon);
  const islandCounts: { island: Island; count: number }[] = [];
  let startRatio = 0;
  let firstDeltaSwitch = false;
  const historical = Math.min(current.index, HISTORY_OBJECTS_MAX);
  let rhythmStart = 0;
  while (
    rhythmStart < historical - 2 &&
    current.startTime - current.previous(rhythmStart)!.startTime < HISTORY_TIME_MAX
  )
    rhythmStart++;
  let prevObj = current.previous(rhythmStart);
  let lastObj = current.previous(rhythmStart + 1);
  for (let i = rhythmStart; i > 0; i--) {
    const currObj = current.previous(i - 1)!;
    if (!prevObj || !lastObj) break;
    const timeDecay =
      (HISTORY_TIME_MAX - (current.startTime - currObj.startTime)) / HISTORY_TIME_MAX;
    const noteDecay = (historical - i) / historical;
    const decay = Math.min(noteDecay, timeDecay);
    const currDelta = currObj.strainTime;
    const prevDelta = prevObj.strainTime;
    const lastDelta = lastObj.strainTime;
    const ratio = Math.min(prevDelta, currDelta) / Math.max(prevDelta, currDelta);
    const currRatio = 1 + 12 * Math.min(0.5, Math.sin(Math.PI / ratio) ** 2);
    const fraction = Math.max(prevDelta / currDelta, currDelta / prevDelta);
    const differenceMultiplier = Math.min(1, Math.max(0, 2 - fraction / 8));
    const windowPenalty = Math.min(
      1,
      Math.max(0, Math.abs(prevDelta - currDelta) - epsilon) / epsilon,
    );
    let effectiveRatio = windowPenalty * currRatio * differenceMultiplier;
    if (firstDeltaSwitch) {
      if (Math.abs(prevDelta - currDelta) < epsilon) island.addDelta(Math.trunc(currDelta));
      else {
        if (currObj.base.kind === 'slider') effectiveRatio *= 0.125;
        if (prevObj.base.kind === 'slider') effectiveRatio *= 0.3;
        if (island.similarPolarity(previousIsland)) effectiveRatio *= 0.5;
        if (lastDelta > prevDelta + epsilon && prevDelta > currDelta + epsilon)
          effectiveRatio *= 0.125;
        if (previousIsland.deltaCount === island.deltaCount) effectiveRatio *= 0.5;
        const found = islandCounts.find((x) => x.island.equals(island));
        if (found) {
          if (previousIsland.equals(island)) found.count++;
          const power = logistic(island.delta, 58.33, 0.24, 2.75);
          effectiveRatio *= Math.min(3 / found.count, (1 / found.count) ** power);
        } else islandCounts.push({ island, count: 1 });
        effectiveRatio *= 1 - prevObj.doubletapness(currObj) * 0.75;
        sum += Math.sqrt(effectiveRatio * startRatio) * decay;
        startRatio = effectiveRatio;
        previousIsland = island;
        if (prevDelta + epsilon < currDelta) firstDeltaSwitch = false;
        island = new Island(epsilon, Math.trunc(currDelta));
      }
    } else if (prevDelta > currDelta + epsilon) {
      firstDeltaSwitch = true;
      if (currObj.base.kind === 'slider') effectiveRatio *= 0.6;
      if (prevObj.base.kind === 'slider') effectiveRatio *= 0.6;
      startRatio = effectiveRatio;
      island = new Island(epsilon, Math.trunc(currDelta));
    }
    lastObj = prevObj;
    prevObj = currObj;
  }
  return Math.sqrt(4 + sum * 0.95) / 2;
}

export function flashlightDifficulty(
  current: DifficultyObject,
  hidden: boolean,
  radius: number,
): number {
  if (current.base.kind === 'spinner') return 0;
  const scale = 52 / radius;
  let smallDistNerf = 1;
  let cumulativeStrainTime = 0;
  let result = 0;
  let lastObj = current;
  let angleRepeatCount = 0;
  for (let i = 0; i < Math.min(current.index, 10); i++) {
    const obj = current.previous(i)!;
    cumulativeStrainTime += lastObj.strainTime;
    if (obj.base.kind !== 'spinner') {
      const jump = Math.hypot(current.base.x - obj.base.endX, current.base.y - obj.base.endY);
      if (i === 0) smallDistNerf = Math.min(1, jump / 75);
      const stackNerf = Math.min(1, obj.lazyJumpDistance / scale / 25);
      const opacityBonus = 1 + 0.4 * (1 - current.opacityAt(obj.base.time, hidden));
      result += (stackNerf * opacityBonus * scale * jump) / cumulativeStrainTime;
      if (obj.angle !== undefined && current.angle !== undefined) {
        if (Math.abs(obj.angle - current.angle) < 0.02)
          angleRepeatCount += Math.max(1 - 0.1 * i, 0);
      }
    }
    lastObj = obj;
  }
  result = (smallDistNerf * result) ** 2;
  if (hidden) result *= 1.2;
  result *= 0.2 + 0.8 / (angleRepeatCount + 1);
  let sliderBonus = 0;
  if (current.base.kind === 'slider') {
    const travel = current.lazyTravelDistance / scale;
    sliderBonus = Math.max(0, travel / current.travelTime - 0.5) ** 0.5 * travel;
    if (current.base.slides > 1) sliderBonus /= current.base.slides;
  }
  return result + sliderBonus * 1.3;
}

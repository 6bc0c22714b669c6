/**
 * Where a play fails, as the game decides it, and the judgement as it stood then.
 *
 * - Sudden Death: the first combo break (a miss or a slider break).
 * - Perfect: the first judgement short of a 300, or any combo break.
 * - No Fail: never.
 * - Otherwise: when the health recorded by the game in the replay's life graph reaches
 *   zero (the graph is the game's own drain and recovery, so it is read, not simulated;
 *   a replay without a graph, as lazer writes them, never fails here).
 */
import { Mods } from '../replay/mods.js';
import type { LifeBarPoint } from '../replay/types.js';
import { unstableRateOf } from './judge-replay.js';
import type { JudgementResult } from './types.js';

export interface PlayFail {
  /** Map time (ms) of the fail. */
  time: number;
  reason: 'sudden death' | 'perfect' | 'health';
}

export function failOf(
  judgement: JudgementResult,
  mods: number,
  lifeBar: readonly LifeBarPoint[],
): PlayFail | undefined {
  if (mods & Mods.NoFail) return undefined;
  if (mods & (Mods.Perfect | Mods.SuddenDeath)) {
    const perfect = (mods & Mods.Perfect) !== 0;
    for (const e of judgement.events) {
      const broke = e.kind === 'sliderbreak' || (e.kind === 'hit' && e.result === 0);
      if (broke || (perfect && e.kind === 'hit' && e.result !== 300))
        return { time: e.time, reason: perfect ? 'perfect' : 'sudden death' };
    }
  }
  // the graph is the game's record: a fail is a point at zero that the play never
  // climbs back from (Easy's extra lives recover from zero)
  let dead: LifeBarPoint | undefined;
  for (const p of lifeBar) {
    if (p.life > 0) dead = undefined;
    else dead ??= p;
  }
  return dead ? { time: dead.time, reason: 'health' } : undefined;
}

/**
 * The judgement as it stood at map time `t`: later events, hits and counts dropped.
 * `speed` is the mods' rate (for the unstable rate in real-time ms).
 */
export function judgementUntil(j: JudgementResult, t: number, speed: number): JudgementResult {
  const events = j.events.filter((e) => e.time <= t);
  let n300 = 0;
  let n100 = 0;
  let n50 = 0;
  let misses = 0;
  let maxCombo = 0;
  for (const e of events) {
    maxCombo = Math.max(maxCombo, e.combo);
    if (e.kind !== 'hit') continue;
    if (e.result === 300) n300++;
    else if (e.result === 100) n100++;
    else if (e.result === 50) n50++;
    else misses++;
  }
  const keep = j.hitErrorTimes.findIndex((time) => time > t);
  const hits = keep < 0 ? j.hitErrors.length : keep;
  const hitErrors = j.hitErrors.slice(0, hits);
  const last = events.at(-1);
  return {
    ...j,
    n300,
    n100,
    n50,
    misses,
    maxCombo,
    accuracy: last?.accuracy ?? 1,
    score: last?.score ?? 0,
    unstableRate: unstableRateOf(hitErrors, speed),
    events,
    hitErrors,
    hitErrorTimes: j.hitErrorTimes.slice(0, hits),
  };
}

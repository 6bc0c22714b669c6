/**
 * PP as the play goes, for the counter: after each judgement event, the performance of
 * the counts and max combo so far against the difficulty of the objects judged so far
 * (the game's timed difficulty attributes), as danser and the game's own counter do.
 * The attributes are recomputed at most ~1,000 times a play (every object on real maps,
 * every n/1,000th on a crafted one, whose work would otherwise grow with n squared); the
 * last event always gets the attributes of everything judged.
 */
import type { PlayableBeatmap } from '../beatmap/playable.js';
import type { JudgementResult } from '../judgement/types.js';
import { DifficultyCalculator, type DifficultyAttributes } from './difficulty-calculator.js';
import { calculatePerformance } from './performance.js';

/** PP after each event of `judgement.events` (same index). */
export function ppTimeline(play: PlayableBeatmap, judgement: JudgementResult): Float64Array {
  const out = new Float64Array(judgement.events.length);
  const calc = new DifficultyCalculator(play, play.mods);
  const difficulty = { ar: play.ar, od: play.od, clockRate: play.speed, mods: play.mods };
  let attributes: DifficultyAttributes | undefined;
  let reached = -1;
  let computedAt = -1;
  const every = Math.max(1, Math.floor(play.objects.length / 1000));
  const counts = { n300: 0, n100: 0, n50: 0, misses: 0, maxCombo: 0 };
  judgement.events.forEach((e, i) => {
    counts.maxCombo = Math.max(counts.maxCombo, e.combo);
    if (e.kind === 'hit') {
      if (e.result === 300) counts.n300++;
      else if (e.result === 100) counts.n100++;
      else if (e.result === 50) counts.n50++;
      else counts.misses++;
      if (e.objectIndex > reached) {
        reached = e.objectIndex;
        while (calc.count <= reached) calc.step();
        const last = i === judgement.events.length - 1;
        if (reached - computedAt >= every || last || !attributes) {
          attributes = calc.attributes();
          computedAt = reached;
        }
      }
    }
    out[i] = attributes ? calculatePerformance(attributes, counts, difficulty).pp : 0;
  });
  // the final value with the attributes of everything judged
  const n = out.length;
  if (n > 0 && computedAt !== reached)
    out[n - 1] = calculatePerformance(calc.attributes(), counts, difficulty).pp;
  return out;
}

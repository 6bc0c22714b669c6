/**
 * The grade of a play as osu!stable gives it (score v1 ranking): SS at 100% accuracy;
 * S above 90% 300s with under 1% 50s and no miss; A above 80% 300s without a miss, or
 * above 90%; B above 70% without a miss, or above 80%; C above 60%; else D. Hidden or
 * Flashlight make SS and S silver (XH, SH).
 */
import { Mods } from '../replay/mods.js';

export type Grade = 'XH' | 'X' | 'SH' | 'S' | 'A' | 'B' | 'C' | 'D';

export interface GradeCounts {
  n300: number;
  n100: number;
  n50: number;
  misses: number;
}

export function gradeOf(c: GradeCounts, mods: number): Grade {
  const total = c.n300 + c.n100 + c.n50 + c.misses;
  const silver = (mods & (Mods.Hidden | Mods.Flashlight)) !== 0;
  if (total === 0) return 'D';
  const r300 = c.n300 / total;
  const r50 = c.n50 / total;
  if (c.n300 === total) return silver ? 'XH' : 'X';
  if (r300 > 0.9 && r50 < 0.01 && c.misses === 0) return silver ? 'SH' : 'S';
  if ((r300 > 0.8 && c.misses === 0) || r300 > 0.9) return 'A';
  if ((r300 > 0.7 && c.misses === 0) || r300 > 0.8) return 'B';
  if (r300 > 0.6) return 'C';
  return 'D';
}

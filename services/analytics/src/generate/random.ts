import { seededRandom } from '@platform/core';

/** A seeded pseudo-random source (mulberry32): the same seed gives the same data set. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight; `weights[i]` belongs to `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** 32 lowercase hex characters, like Olist's ids. */
  hexId(): string;
}

export function createRandom(seed: number): Random {
  const next = seededRandom(seed);
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    weighted: (items, weights) => {
      const total = weights.reduce((a, b) => a + b, 0);
      let roll = next() * total;
      for (let i = 0; i < items.length; i++) {
        roll -= weights[i]!;
        if (roll < 0) return items[i]!;
      }
      return items[items.length - 1]!;
    },
    normal: () => {
      const u = 1 - next();
      const v = next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    hexId: () => {
      let id = '';
      for (let i = 0; i < 4; i++)
        id += Math.floor(next() * 0x100000000)
          .toString(16)
          .padStart(8, '0');
      return id;
    },
  };
  return random;
}

/**
 * mulberry32: a small, fast generator of uniform numbers in [0, 1) that repeats for its
 * seed (a 32-bit integer). For what must come out the same again from the same seed:
 * generated data sets, fuzz inputs, fault schedules. Not for anything secret (ids,
 * tokens): those come from `node:crypto`.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The project's own default hitsounds, synthesised (no game assets, nothing to
 * license): hitnormal, hitwhistle, hitfinish, hitclap and slidertick for the normal,
 * soft and drum sets. Deterministic (seeded noise). Interleaved stereo float at
 * SAMPLE_RATE, peak about 0.5.
 */
export const SAMPLE_RATE = 44100;

const SETS: Record<string, { pitch: number; noise: number }> = {
  normal: { pitch: 1, noise: 1 },
  soft: { pitch: 0.6, noise: 0.5 },
  drum: { pitch: 0.35, noise: 1.2 },
};

/** The synthesised sample for a base name such as `soft-hitclap`, or undefined for an unknown name. */
export function defaultSample(name: string): Float32Array | undefined {
  const m = /^(normal|soft|drum)-(hitnormal|hitwhistle|hitfinish|hitclap|slidertick)$/.exec(
    name.toLowerCase(),
  );
  if (!m) return undefined;
  const set = SETS[m[1]!]!;
  const noise = seededNoise(name.length * 7919 + m[1]!.length);
  switch (m[2]) {
    case 'hitnormal':
      return render(0.09, (t) => {
        const tone = Math.sin(2 * Math.PI * 900 * set.pitch * t) * Math.exp(-t / 0.025);
        return 0.35 * tone + 0.25 * set.noise * noise() * Math.exp(-t / 0.006);
      });
    case 'hitwhistle':
      return render(0.22, (t) => {
        const f = 1900 * set.pitch * (1 + 0.02 * Math.sin(2 * Math.PI * 18 * t));
        return 0.3 * Math.sin(2 * Math.PI * f * t) * Math.min(1, t / 0.01) * Math.exp(-t / 0.08);
      });
    case 'hitfinish': {
      let prev = 0;
      return render(0.7, (t) => {
        // a first difference of noise leans it towards the high end (a cymbal)
        const n = noise();
        const hp = n - prev;
        prev = n;
        return 0.25 * set.noise * hp * Math.exp(-t / 0.22);
      });
    }
    case 'hitclap':
      return render(0.12, (t) => {
        // three quick bursts, as hands clapping
        const burst = Math.max(
          Math.exp(-t / 0.004),
          t > 0.011 ? Math.exp(-(t - 0.011) / 0.004) : 0,
          t > 0.022 ? Math.exp(-(t - 0.022) / 0.02) : 0,
        );
        return 0.4 * set.noise * noise() * burst;
      });
    default:
      return render(0.04, (t) => {
        return 0.25 * Math.sin(2 * Math.PI * 2600 * set.pitch * t) * Math.exp(-t / 0.01);
      });
  }
}

function render(seconds: number, f: (t: number) => number): Float32Array {
  const n = Math.round(seconds * SAMPLE_RATE);
  const out = new Float32Array(n * 2);
  for (let i = 0; i < n; i++) {
    const v = f(i / SAMPLE_RATE);
    out[i * 2] = v;
    out[i * 2 + 1] = v;
  }
  return out;
}

/**
 * Uniform noise in [-1, 1) from a 32-bit seed (mulberry32, as core's `seededRandom`: the
 * game's package depends on no workspace package at run time, and core would bring it
 * Fastify, SQL and S3 clients).
 */
function seededNoise(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  };
}

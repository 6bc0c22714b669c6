/** The difficulty calculation's curves (osu.Game/Rulesets/Difficulty/Utils/DifficultyCalculationUtils). */

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

export function logistic(
  x: number,
  midpointOffset: number,
  multiplier: number,
  maxValue = 1,
): number {
  return maxValue / (1 + Math.exp(multiplier * (midpointOffset - x)));
}

export function smoothstep(x: number, start: number, end: number): number {
  const t = clamp((x - start) / (end - start), 0, 1);
  return t * t * (3 - 2 * t);
}

export function smootherstep(x: number, start: number, end: number): number {
  const t = clamp((x - start) / (end - start), 0, 1);
  return t * t * t * (t * (6 * t - 15) + 10);
}

export function smoothstepBellCurve(x: number, mean = 0.5, width = 0.5): number {
  let d = x - mean;
  d = d > 0 ? width - d : width + d;
  return smoothstep(d, 0, width);
}

export function reverseLerp(x: number, start: number, end: number): number {
  return clamp((x - start) / (end - start), 0, 1);
}

export function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

/**
 * The error function to double precision (W. J. Cody's rational approximations, as the
 * game's Boost-derived implementation of this calculator version is).
 */
export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax < 0.5) {
    const p = [
      3.1611237438705655, 113.86415415105016, 377.485237685302, 3209.3775891384694,
      0.18577770618460315,
    ];
    const q = [23.601290952344122, 244.02463793444417, 1282.6165260773723, 2844.236833439171];
    const z = x * x;
    let num = p[4]! * z;
    let den = z;
    for (let i = 0; i < 3; i++) {
      num = (num + p[i]!) * z;
      den = (den + q[i]!) * z;
    }
    return (x * (num + p[3]!)) / (den + q[3]!);
  }
  return x > 0 ? 1 - erfc(ax) : erfc(ax) - 1;
}

/** Complementary error function for x >= 0.5 (Cody). */
function erfc(ax: number): number {
  if (ax >= 27) return 0;
  let r: number;
  if (ax <= 4) {
    const c = [
      0.5641884969886701, 8.883149794388377, 66.11919063714163, 298.6351381974001, 881.952221241769,
      1712.0476126340707, 2051.0783778260716, 1230.3393547979972, 2.1531153547440383e-8,
    ];
    const d = [
      15.744926110709835, 117.6939508913125, 537.1811018620099, 1621.3895745666903,
      3290.7992357334597, 4362.619090143247, 3439.3676741437216, 1230.3393548037495,
    ];
    let num = c[8]! * ax;
    let den = ax;
    for (let i = 0; i < 7; i++) {
      num = (num + c[i]!) * ax;
      den = (den + d[i]!) * ax;
    }
    r = (num + c[7]!) / (den + d[7]!);
  } else {
    const p = [
      0.30532663496123236, 0.36034489994980445, 0.12578172611122926, 0.016083785148742275,
      0.0006587491615298378, 0.016315387137302097,
    ];
    const q = [
      2.568520192289822, 1.8729528499234673, 0.5279051029514285, 0.06051834131244132,
      0.0023352049762686918,
    ];
    const z = 1 / (ax * ax);
    let num = p[5]! * z;
    let den = z;
    for (let i = 0; i < 4; i++) {
      num = (num + p[i]!) * z;
      den = (den + q[i]!) * z;
    }
    r = (z * (num + p[4]!)) / (den + q[4]!);
    r = (1 / Math.sqrt(Math.PI) - r) / ax;
  }
  // exp(-x^2) split to keep precision
  const xs = Math.trunc(ax * 16) / 16;
  const del = (ax - xs) * (ax + xs);
  return Math.exp(-xs * xs) * Math.exp(-del) * r;
}

/** Inverse of erf: an initial guess refined by Newton steps on erf above. */
export function erfInv(x: number): number {
  if (x <= -1) return -Infinity;
  if (x >= 1) return Infinity;
  if (x === 0) return 0;
  // Giles' single-precision approximation as the starting point
  let w = -Math.log((1 - x) * (1 + x));
  let y: number;
  if (w < 5) {
    w -= 2.5;
    y = 2.81022636e-8;
    for (const c of [
      3.43273939e-7, -3.5233877e-6, -0.00000439150654, 0.00021858087, -0.00125372503,
      -0.00417768164, 0.246640727, 1.50140941,
    ])
      y = c + y * w;
  } else {
    w = Math.sqrt(w) - 3;
    y = -0.000200214257;
    for (const c of [
      0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
      1.00167406, 2.83297682,
    ])
      y = c + y * w;
  }
  y *= x;
  for (let i = 0; i < 3; i++) {
    const err = erf(y) - x;
    y -= err / ((2 / Math.sqrt(Math.PI)) * Math.exp(-y * y));
  }
  return y;
}

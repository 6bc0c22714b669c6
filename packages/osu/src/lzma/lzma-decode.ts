/**
 * LZMA ("alone" / .lzma) decoder: reads a 13-byte header (properties, dictionary size,
 * unpacked size or -1) and the range-coded stream; returns the decoded bytes.
 * Raises LzmaError on any malformed input: bad properties, a stream that reads past
 * its end, a distance outside the output, or an output larger than `maxOutput`. It never
 * loops without consuming input, so garbage fails fast instead of hanging.
 *
 * The range coder's state lives in the fields of one object (`RangeDecoder`) rather than
 * in variables shared by closures: V8 keeps such fields in the object and inlines the
 * small methods, where every closure call had to load and store its context. It decodes
 * a replay's frames about 3× faster (render admission decodes every submitted replay).
 */
export class LzmaError extends Error {
  override readonly name = 'LzmaError';
}

const PROB_INIT = 1024;
/** The range is renormalized when its top byte is zero. */
const TOP_MASK = 0xff000000 | 0;
const SIGN = 0x80000000 | 0;

// The probability model, laid out in one array.
const IS_MATCH = 0;
const IS_REP = IS_MATCH + 192;
const IS_REP_G0 = IS_REP + 12;
const IS_REP_G1 = IS_REP_G0 + 12;
const IS_REP_G2 = IS_REP_G1 + 12;
const IS_REP0_LONG = IS_REP_G2 + 12;
const POS_SLOT = IS_REP0_LONG + 192; // 4 * 64
const POS_DEC = POS_SLOT + 256; // 115
const ALIGN = POS_DEC + 115; // 16
const LEN = ALIGN + 16; // len coder: 2 + 16*8 + 16*8 + 256 = 514
const REP_LEN = LEN + 514;
const LIT = REP_LEN + 514;

class RangeDecoder {
  // `range` and `code` hold the coder's unsigned 32-bit values as int32 bit patterns, so
  // V8 keeps them as small integers (as doubles every update allocated a heap number);
  // unsigned comparisons flip the sign bit of both sides.
  range = -1;
  code = 0;

  constructor(
    private readonly input: Uint8Array,
    private inPos: number,
    readonly probs: Uint16Array,
  ) {
    if (input.length - inPos < 5) throw new LzmaError('LZMA stream truncated');
    if (input[this.inPos++] !== 0) throw new LzmaError('bad LZMA range coder start');
    for (let i = 0; i < 4; i++) this.code = (this.code << 8) | input[this.inPos++]!;
    if (this.code === this.range) throw new LzmaError('bad LZMA range coder start');
  }

  private normalize(): void {
    if (this.inPos >= this.input.length) throw new LzmaError('LZMA stream truncated');
    this.range <<= 8;
    this.code = (this.code << 8) | this.input[this.inPos++]!;
  }

  bit(i: number): number {
    const probs = this.probs;
    const p = probs[i]!;
    const bound = Math.imul(this.range >>> 11, p);
    let b: number;
    if ((this.code ^ SIGN) < (bound ^ SIGN)) {
      this.range = bound;
      probs[i] = p + ((2048 - p) >>> 5);
      b = 0;
    } else {
      this.range = (this.range - bound) | 0;
      this.code = (this.code - bound) | 0;
      probs[i] = p - (p >>> 5);
      b = 1;
    }
    if ((this.range & TOP_MASK) === 0) this.normalize();
    return b;
  }

  direct(n: number): number {
    let res = 0;
    for (let i = 0; i < n; i++) {
      this.range = this.range >>> 1;
      let b = 0;
      if ((this.code ^ SIGN) >= (this.range ^ SIGN)) {
        this.code = (this.code - this.range) | 0;
        b = 1;
      }
      res = res * 2 + b;
      if ((this.range & TOP_MASK) === 0) this.normalize();
    }
    return res;
  }

  /**
   * Decodes the rest of a literal from `symbol` (1 for a whole byte): the hot loop, so
   * the coder's state is kept in locals for its eight bits.
   */
  literal(base: number, symbol: number): number {
    const probs = this.probs;
    const input = this.input;
    let range = this.range;
    let code = this.code;
    while (symbol < 0x100) {
      const i = base + symbol;
      const p = probs[i]!;
      const bound = Math.imul(range >>> 11, p);
      if ((code ^ SIGN) < (bound ^ SIGN)) {
        range = bound;
        probs[i] = p + ((2048 - p) >>> 5);
        symbol <<= 1;
      } else {
        range = (range - bound) | 0;
        code = (code - bound) | 0;
        probs[i] = p - (p >>> 5);
        symbol = (symbol << 1) | 1;
      }
      if ((range & TOP_MASK) === 0) {
        if (this.inPos >= input.length) throw new LzmaError('LZMA stream truncated');
        range <<= 8;
        code = (code << 8) | input[this.inPos++]!;
      }
    }
    this.range = range;
    this.code = code;
    return symbol;
  }

  tree(base: number, n: number): number {
    let m = 1;
    for (let i = 0; i < n; i++) m = (m << 1) + this.bit(base + m);
    return m - (1 << n);
  }

  reverseTree(base: number, n: number): number {
    let m = 1;
    let sym = 0;
    for (let i = 0; i < n; i++) {
      const b = this.bit(base + m);
      m = (m << 1) + b;
      sym |= b << i;
    }
    return sym;
  }

  len(base: number, posState: number): number {
    if (this.bit(base) === 0) return this.tree(base + 2 + posState * 8, 3);
    if (this.bit(base + 1) === 0) return 8 + this.tree(base + 2 + 128 + posState * 8, 3);
    return 16 + this.tree(base + 2 + 256, 8);
  }
}

/**
 * The output with room for `n` more bytes after `pos`: a stream without a size grows,
 * up to `maxOutput`. (A function of its arguments, not a closure: a closure over `pos`
 * and `out` would make every write of them a store to its context.)
 */
function grown(
  out: Uint8Array,
  pos: number,
  n: number,
  sizeKnown: boolean,
  maxOutput: number,
): Uint8Array {
  if (sizeKnown) throw new LzmaError('LZMA data longer than its header says');
  if (pos + n > maxOutput) throw new LzmaError('LZMA output too large');
  const bigger = new Uint8Array(Math.min(maxOutput, Math.max(pos + n, out.length * 2)));
  bigger.set(out.subarray(0, pos));
  return bigger;
}

export function lzmaDecode(input: Uint8Array, maxOutput = 256 * 1024 * 1024): Uint8Array {
  if (input.length < 13) throw new LzmaError('LZMA header truncated');
  let d = input[0]!;
  if (d >= 9 * 5 * 5) throw new LzmaError('bad LZMA properties');
  const lc = d % 9;
  d = (d / 9) | 0;
  const lp = d % 5;
  const pb = (d / 5) | 0;
  let dictSize = 0;
  for (let i = 0; i < 4; i++) dictSize += input[1 + i]! * 2 ** (8 * i);
  let unpackSize = 0;
  let sizeKnown = false;
  for (let i = 0; i < 8; i++) {
    if (input[5 + i] !== 0xff) sizeKnown = true;
  }
  if (sizeKnown) {
    for (let i = 0; i < 8; i++) unpackSize += input[5 + i]! * 2 ** (8 * i);
    if (unpackSize > maxOutput) throw new LzmaError('LZMA unpacked size too large');
  }

  const probs = new Uint16Array(LIT + (0x300 << (lc + lp))).fill(PROB_INIT);
  const rc = new RangeDecoder(input, 13, probs);

  let out: Uint8Array = new Uint8Array(
    sizeKnown ? unpackSize : Math.min(maxOutput, Math.max(1 << 16, input.length * 4)),
  );
  let pos = 0;
  const pbMask = (1 << pb) - 1;
  const lpMask = (1 << lp) - 1;
  let state = 0;
  let rep0 = 0;
  let rep1 = 0;
  let rep2 = 0;
  let rep3 = 0;

  while (!sizeKnown || pos < unpackSize) {
    const posState = pos & pbMask;
    if (rc.bit(IS_MATCH + (state << 4) + posState) === 0) {
      const prev = pos > 0 ? out[pos - 1]! : 0;
      const base = LIT + 0x300 * (((pos & lpMask) << lc) + (prev >>> (8 - lc)));
      let symbol = 1;
      if (state >= 7) {
        if (rep0 >= pos) throw new LzmaError('LZMA distance out of range');
        let matchByte = out[pos - rep0 - 1]!;
        do {
          const matchBit = (matchByte >>> 7) & 1;
          matchByte <<= 1;
          const b = rc.bit(base + ((1 + matchBit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (matchBit !== b) break;
        } while (symbol < 0x100);
      }
      if (symbol < 0x100) symbol = rc.literal(base, symbol);
      if (pos + 1 > out.length) out = grown(out, pos, 1, sizeKnown, maxOutput);
      out[pos++] = symbol & 0xff;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let len: number;
    if (rc.bit(IS_REP + state) !== 0) {
      if (pos === 0) throw new LzmaError('LZMA repeat at start');
      if (rc.bit(IS_REP_G0 + state) === 0) {
        if (rc.bit(IS_REP0_LONG + (state << 4) + posState) === 0) {
          state = state < 7 ? 9 : 11;
          if (rep0 >= pos) throw new LzmaError('LZMA distance out of range');
          if (pos + 1 > out.length) out = grown(out, pos, 1, sizeKnown, maxOutput);
          out[pos] = out[pos - rep0 - 1]!;
          pos++;
          continue;
        }
      } else {
        let dist: number;
        if (rc.bit(IS_REP_G1 + state) === 0) dist = rep1;
        else {
          if (rc.bit(IS_REP_G2 + state) === 0) dist = rep2;
          else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = rc.len(REP_LEN, posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = rc.len(LEN, posState);
      state = state < 7 ? 7 : 10;
      const lenState = len < 3 ? len : 3;
      const posSlot = rc.tree(POS_SLOT + (lenState << 6), 6);
      if (posSlot < 4) rep0 = posSlot;
      else {
        const nd = (posSlot >>> 1) - 1;
        let dist = (2 | (posSlot & 1)) * 2 ** nd;
        if (posSlot < 14) dist += rc.reverseTree(POS_DEC + dist - posSlot, nd);
        else {
          dist += rc.direct(nd - 4) * 16;
          dist += rc.reverseTree(ALIGN, 4);
        }
        rep0 = dist;
      }
      if (rep0 === 0xffffffff) break; // end marker
      if (rep0 >= pos || rep0 >= Math.max(dictSize, 4096))
        throw new LzmaError('LZMA distance out of range');
    }
    len += 2;
    if (sizeKnown && pos + len > unpackSize)
      throw new LzmaError('LZMA data longer than its header says');
    if (pos + len > out.length) out = grown(out, pos, len, sizeKnown, maxOutput);
    const src = pos - rep0 - 1;
    if (src < 0) throw new LzmaError('LZMA distance out of range');
    for (let i = 0; i < len; i++) out[pos + i] = out[src + i]!;
    pos += len;
  }
  return out.subarray(0, pos);
}

/**
 * LZMA ("alone" / .lzma) decoder: reads a 13-byte header (properties, dictionary size,
 * unpacked size or -1) and the range-coded stream; returns the decoded bytes.
 * Raises LzmaError on any malformed input: bad properties, a stream that reads past
 * its end, a distance outside the output, or an output larger than `maxOutput`. It never
 * loops without consuming input, so garbage fails fast instead of hanging.
 */
export class LzmaError extends Error {
  override readonly name = 'LzmaError';
}

const PROB_INIT = 1024;

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

  let inPos = 13;
  const inEnd = input.length;
  if (inEnd - inPos < 5) throw new LzmaError('LZMA stream truncated');
  if (input[inPos++] !== 0) throw new LzmaError('bad LZMA range coder start');
  let range = 0xffffffff;
  let code = 0;
  for (let i = 0; i < 4; i++) code = ((code << 8) | input[inPos++]!) >>> 0;
  if (code === range) throw new LzmaError('bad LZMA range coder start');

  // probability model, laid out in one array
  const numLit = 0x300 << (lc + lp);
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
  const probs = new Uint16Array(LIT + numLit).fill(PROB_INIT);

  const bit = (i: number): number => {
    const p = probs[i]!;
    const bound = (range >>> 11) * p;
    let b: number;
    if (code < bound) {
      range = bound;
      probs[i] = p + ((2048 - p) >>> 5);
      b = 0;
    } else {
      range -= bound;
      code -= bound;
      probs[i] = p - (p >>> 5);
      b = 1;
    }
    if (range < 0x1000000) {
      if (inPos >= inEnd) throw new LzmaError('LZMA stream truncated');
      range = (range * 256) >>> 0;
      code = ((code << 8) | input[inPos++]!) >>> 0;
    }
    return b;
  };
  const direct = (n: number): number => {
    let res = 0;
    for (let i = 0; i < n; i++) {
      range >>>= 1;
      let b = 0;
      if (code >= range) {
        code -= range;
        b = 1;
      }
      res = res * 2 + b;
      if (range < 0x1000000) {
        if (inPos >= inEnd) throw new LzmaError('LZMA stream truncated');
        range = (range * 256) >>> 0;
        code = ((code << 8) | input[inPos++]!) >>> 0;
      }
    }
    return res;
  };
  const tree = (base: number, n: number): number => {
    let m = 1;
    for (let i = 0; i < n; i++) m = (m << 1) + bit(base + m);
    return m - (1 << n);
  };
  const reverseTree = (base: number, n: number): number => {
    let m = 1;
    let sym = 0;
    for (let i = 0; i < n; i++) {
      const b = bit(base + m);
      m = (m << 1) + b;
      sym |= b << i;
    }
    return sym;
  };
  const decodeLen = (base: number, posState: number): number => {
    if (bit(base) === 0) return tree(base + 2 + posState * 8, 3);
    if (bit(base + 1) === 0) return 8 + tree(base + 2 + 128 + posState * 8, 3);
    return 16 + tree(base + 2 + 256, 8);
  };

  let out = new Uint8Array(
    sizeKnown ? unpackSize : Math.min(maxOutput, Math.max(1 << 16, input.length * 4)),
  );
  let pos = 0;
  const ensure = (n: number): void => {
    if (pos + n <= out.length) return;
    if (sizeKnown) throw new LzmaError('LZMA data longer than its header says');
    if (pos + n > maxOutput) throw new LzmaError('LZMA output too large');
    const grown = new Uint8Array(Math.min(maxOutput, Math.max(pos + n, out.length * 2)));
    grown.set(out.subarray(0, pos));
    out = grown;
  };

  const pbMask = (1 << pb) - 1;
  const lpMask = (1 << lp) - 1;
  let state = 0;
  let rep0 = 0;
  let rep1 = 0;
  let rep2 = 0;
  let rep3 = 0;

  while (!sizeKnown || pos < unpackSize) {
    const posState = pos & pbMask;
    if (bit(IS_MATCH + (state << 4) + posState) === 0) {
      const prev = pos > 0 ? out[pos - 1]! : 0;
      const base = LIT + 0x300 * (((pos & lpMask) << lc) + (prev >>> (8 - lc)));
      let symbol = 1;
      if (state >= 7) {
        if (rep0 >= pos) throw new LzmaError('LZMA distance out of range');
        let matchByte = out[pos - rep0 - 1]!;
        do {
          const matchBit = (matchByte >>> 7) & 1;
          matchByte <<= 1;
          const b = bit(base + ((1 + matchBit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (matchBit !== b) break;
        } while (symbol < 0x100);
      }
      while (symbol < 0x100) symbol = (symbol << 1) | bit(base + symbol);
      ensure(1);
      out[pos++] = symbol & 0xff;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let len: number;
    if (bit(IS_REP + state) !== 0) {
      if (pos === 0) throw new LzmaError('LZMA repeat at start');
      if (bit(IS_REP_G0 + state) === 0) {
        if (bit(IS_REP0_LONG + (state << 4) + posState) === 0) {
          state = state < 7 ? 9 : 11;
          if (rep0 >= pos) throw new LzmaError('LZMA distance out of range');
          ensure(1);
          out[pos] = out[pos - rep0 - 1]!;
          pos++;
          continue;
        }
      } else {
        let dist: number;
        if (bit(IS_REP_G1 + state) === 0) dist = rep1;
        else {
          if (bit(IS_REP_G2 + state) === 0) dist = rep2;
          else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = decodeLen(REP_LEN, posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = decodeLen(LEN, posState);
      state = state < 7 ? 7 : 10;
      const lenState = len < 3 ? len : 3;
      const posSlot = tree(POS_SLOT + (lenState << 6), 6);
      if (posSlot < 4) rep0 = posSlot;
      else {
        const nd = (posSlot >>> 1) - 1;
        let dist = (2 | (posSlot & 1)) * 2 ** nd;
        if (posSlot < 14) dist += reverseTree(POS_DEC + dist - posSlot, nd);
        else {
          dist += direct(nd - 4) * 16;
          dist += reverseTree(ALIGN, 4);
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
    ensure(len);
    const src = pos - rep0 - 1;
    if (src < 0) throw new LzmaError('LZMA distance out of range');
    for (let i = 0; i < len; i++) out[pos + i] = out[src + i]!;
    pos += len;
  }
  return out.subarray(0, pos);
}

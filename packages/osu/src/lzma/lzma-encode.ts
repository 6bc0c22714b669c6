/**
 * Minimal LZMA ("alone" / .lzma) encoder: literals only, range-coded with the standard
 * model (lc=3, lp=0, pb=2), the unpacked size in the header. Any LZMA decoder reads it;
 * it does not compress much, which is fine for building test replays.
 */
export function lzmaEncode(data: Uint8Array): Uint8Array {
  const out: number[] = [0x5d, 0, 0, 0x20, 0]; // props, dict size 2 MiB
  let size = data.length;
  for (let i = 0; i < 8; i++) {
    out.push(size % 256);
    size = Math.floor(size / 256);
  }
  const probs = new Uint16Array(192 + 0x300 * 8).fill(1024);
  const LIT = 192;
  let low = 0;
  let range = 0xffffffff;
  let cache = 0;
  let cacheSize = 1;
  const shiftLow = (): void => {
    if (low < 0xff000000 || low >= 0x100000000) {
      const carry = low >= 0x100000000 ? 1 : 0;
      let temp = cache;
      do {
        out.push((temp + carry) & 0xff);
        temp = 0xff;
      } while (--cacheSize !== 0);
      cache = Math.floor((low % 0x100000000) / 0x1000000);
    }
    cacheSize++;
    low = (low % 0x1000000) * 256;
  };
  const encodeBit = (i: number, b: number): void => {
    const p = probs[i]!;
    const bound = (range >>> 11) * p;
    if (b === 0) {
      range = bound;
      probs[i] = p + ((2048 - p) >>> 5);
    } else {
      low += bound;
      range -= bound;
      probs[i] = p - (p >>> 5);
    }
    while (range < 0x1000000) {
      range = (range * 256) >>> 0;
      shiftLow();
    }
  };
  let prev = 0;
  for (let pos = 0; pos < data.length; pos++) {
    encodeBit(pos & 3, 0); // isMatch[state 0][posState]
    const base = LIT + 0x300 * (prev >>> 5);
    const byte = data[pos]!;
    let m = 1;
    for (let i = 7; i >= 0; i--) {
      const b = (byte >>> i) & 1;
      encodeBit(base + m, b);
      m = (m << 1) | b;
    }
    prev = byte;
  }
  for (let i = 0; i < 5; i++) shiftLow();
  return Uint8Array.from(out);
}

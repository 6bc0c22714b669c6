/**
 * Little-endian reader for the .osr primitives (byte, short, int, long, double,
 * ULEB128 and the 0x0b-prefixed string). Every read checks bounds and throws
 * ReplayDecodeError('TRUNCATED') past the end.
 */
import { ReplayDecodeError } from './replay-decode-error.js';

export class BinaryReader {
  pos = 0;
  private readonly view: DataView;
  constructor(private readonly data: Uint8Array) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }
  get remaining(): number {
    return this.data.length - this.pos;
  }
  private need(n: number, what: string): void {
    if (this.pos + n > this.data.length)
      throw new ReplayDecodeError('TRUNCATED', `replay truncated while reading ${what}`);
  }
  byte(what = 'byte'): number {
    this.need(1, what);
    return this.data[this.pos++]!;
  }
  short(what = 'short'): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  int(what = 'int'): number {
    this.need(4, what);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  long(what = 'long'): bigint {
    this.need(8, what);
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }
  double(what = 'double'): number {
    this.need(8, what);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  bytes(n: number, what = 'bytes'): Uint8Array {
    if (n < 0) throw new ReplayDecodeError('MALFORMED', `negative length for ${what}`);
    this.need(n, what);
    const v = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  uleb(what = 'length'): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte(what);
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 35) throw new ReplayDecodeError('MALFORMED', `ULEB128 too long in ${what}`);
    }
    return result;
  }
  string(what = 'string'): string {
    const flag = this.byte(what);
    if (flag === 0) return '';
    if (flag !== 0x0b)
      throw new ReplayDecodeError(
        'MALFORMED',
        `bad string marker 0x${flag.toString(16)} in ${what}`,
      );
    const len = this.uleb(what);
    return new TextDecoder().decode(this.bytes(len, what));
  }
}

export class BinaryWriter {
  private chunks: number[] = [];
  private parts: Uint8Array[] = [];
  private flush(): void {
    if (this.chunks.length) {
      this.parts.push(Uint8Array.from(this.chunks));
      this.chunks = [];
    }
  }
  byte(v: number): this {
    this.chunks.push(v & 0xff);
    return this;
  }
  short(v: number): this {
    return this.byte(v).byte(v >>> 8);
  }
  int(v: number): this {
    return this.byte(v)
      .byte(v >>> 8)
      .byte(v >>> 16)
      .byte(v >>> 24);
  }
  long(v: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigInt64(0, v, true);
    return this.bytes(b);
  }
  double(v: number): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    return this.bytes(b);
  }
  bytes(b: Uint8Array): this {
    this.flush();
    this.parts.push(b);
    return this;
  }
  uleb(v: number): this {
    do {
      let b = v % 128;
      v = Math.floor(v / 128);
      if (v > 0) b |= 0x80;
      this.byte(b);
    } while (v > 0);
    return this;
  }
  string(s: string): this {
    if (!s) return this.byte(0);
    const b = new TextEncoder().encode(s);
    return this.byte(0x0b).uleb(b.length).bytes(b);
  }
  toBytes(): Uint8Array {
    this.flush();
    const total = this.parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(total);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

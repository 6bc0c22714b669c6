/**
 * RGBA (8 bits a channel, opaque) to I420 (planar Y, then U and V at half size both
 * ways), BT.709 limited range, as x264 wants its input: doing it here instead of in
 * ffmpeg's single-threaded swscale moves ~5 ms a 1080p frame off ffmpeg and sends
 * 1.5 bytes a pixel down the pipe instead of 4. Chroma is the mean of each 2x2 block
 * (centre siting). Fixed point, 16 fractional bits; width and height must be even.
 *
 * `I420Converter` is what renders use: the same maths in WebAssembly SIMD
 * (rgba-to-i420.wat, 16 pixels a step), ~4x less CPU than the plain loop below, which
 * remains for widths that are not a multiple of 8. With motion blur it also blends each
 * frame with the two before it (`blend121`), so that ffmpeg only encodes: its two
 * `tblend`s were ~a quarter of its CPU at 4k (README, Benchmarks).
 */
import { wasmBase64 } from './rgba-to-i420.wasm.js';

// Y  = 16  + 219/255 (0.2126 R + 0.7152 G + 0.0722 B)
const YR = 11966;
const YG = 40254;
const YB = 4064;
// Cb = 128 + 224/255 (-0.1146 R - 0.3854 G + 0.5 B); the row sums to zero
const UR = -6596;
const UG = -22188;
const UB = 28784;
// Cr = 128 + 224/255 (0.5 R - 0.4542 G - 0.0458 B); the row sums to zero
const VR = 28784;
const VG = -26144;
const VB = -2640;
const Y_OFFSET = (16 << 16) + (1 << 15);
const C_OFFSET = (128 << 16) + (1 << 15);

/** Bytes of an I420 frame of this size. */
export function i420Size(width: number, height: number): number {
  return width * height + 2 * (width >> 1) * (height >> 1);
}

/**
 * Converts `rgba` (width * height * 4 bytes) into `out` (i420Size bytes) and returns
 * `out`. Alpha is ignored: the frames drawn are opaque.
 */
export function rgbaToI420(
  rgba: Uint8Array,
  width: number,
  height: number,
  out: Uint8Array,
): Uint8Array {
  if (width % 2 !== 0 || height % 2 !== 0)
    throw new RangeError('I420 needs an even width and height');
  if (rgba.byteLength < width * height * 4) throw new RangeError('RGBA buffer is too small');
  if (out.byteLength < i420Size(width, height)) throw new RangeError('I420 buffer is too small');
  // one 32-bit read a pixel (R in the low byte on little-endian machines)
  const aligned = rgba.byteOffset % 4 === 0;
  const px = aligned
    ? new Uint32Array(rgba.buffer, rgba.byteOffset, width * height)
    : new Uint32Array(rgba.slice(0, width * height * 4).buffer);
  const cw = width >> 1;
  const uBase = width * height;
  const vBase = uBase + cw * (height >> 1);
  for (let y = 0; y < height; y += 2) {
    let i0 = y * width;
    let i1 = i0 + width;
    let c = uBase + (y >> 1) * cw;
    const cEnd = c + cw;
    for (; c < cEnd; c++, i0 += 2, i1 += 2) {
      const p00 = px[i0]!;
      const p01 = px[i0 + 1]!;
      const p10 = px[i1]!;
      const p11 = px[i1 + 1]!;
      let r = p00 & 255;
      let g = (p00 >>> 8) & 255;
      let b = (p00 >>> 16) & 255;
      out[i0] = (YR * r + YG * g + YB * b + Y_OFFSET) >> 16;
      let rs = r;
      let gs = g;
      let bs = b;
      r = p01 & 255;
      g = (p01 >>> 8) & 255;
      b = (p01 >>> 16) & 255;
      out[i0 + 1] = (YR * r + YG * g + YB * b + Y_OFFSET) >> 16;
      rs += r;
      gs += g;
      bs += b;
      r = p10 & 255;
      g = (p10 >>> 8) & 255;
      b = (p10 >>> 16) & 255;
      out[i1] = (YR * r + YG * g + YB * b + Y_OFFSET) >> 16;
      rs += r;
      gs += g;
      bs += b;
      r = p11 & 255;
      g = (p11 >>> 8) & 255;
      b = (p11 >>> 16) & 255;
      out[i1 + 1] = (YR * r + YG * g + YB * b + Y_OFFSET) >> 16;
      rs += r;
      gs += g;
      bs += b;
      // sums of four: divide by 4 inside the shift
      out[c] = (UR * rs + UG * gs + UB * bs + (C_OFFSET << 2)) >> 18;
      out[c - uBase + vBase] = (VR * rs + VG * gs + VB * bs + (C_OFFSET << 2)) >> 18;
    }
  }
  return out;
}

/**
 * The motion blur of frame n: `out = avg(avg(p2, p1), avg(p1, c))` byte by byte, with
 * `avg(a, b) = (a + b) >> 1`, where p2, p1 and c are frames n-2, n-1 and n. The same
 * bytes as ffmpeg's `tblend=all_mode=average` twice in a row (a test compares them),
 * which is what the encoder ran before: the 1-2-1 mean of the last three frames.
 */
export function blend121(
  p2: Uint8Array,
  p1: Uint8Array,
  c: Uint8Array,
  out: Uint8Array,
): Uint8Array {
  const n = out.length;
  if (p2.length < n || p1.length < n || c.length < n) throw new RangeError('blend: short frame');
  for (let i = 0; i < n; i++) {
    const b = p1[i]!;
    out[i] = (((p2[i]! + b) >> 1) + ((b + c[i]!) >> 1)) >> 1;
  }
  return out;
}

/** The slice of the WebAssembly API used here (the project's TypeScript libs declare none). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface WasmConverter {
  memory: { buffer: ArrayBuffer; grow: (pages: number) => number };
  convert: (src: number, width: number, rows: number, y: number, u: number, v: number) => void;
  blend121: (p2: number, p1: number, c: number, out: number, n: number) => void;
}

let wasmModule: object | undefined;

/** Rows copied into WebAssembly memory at a time: small enough to stay in cache. */
const CHUNK_ROWS = 16;
const PAGE = 65536;

/**
 * Converts frames of one size into a ring of `slots` output buffers: the view returned
 * for a slot stays valid (and unchanged) until that slot is converted into again, so a
 * frame can sit in a pipe while the next ones are converted.
 *
 * With `motionBlur`, each output is the 1-2-1 blend (`blend121`) of the frame converted
 * and the two converted before it, as ffmpeg's `tpad=start=2:start_mode=clone` and two
 * `tblend`s gave it (the first frame stands in for the two before it). The unblended
 * frames are kept in a ring of three; the blend runs on each chunk of rows just
 * converted, while it is still in cache.
 */
export class I420Converter {
  private readonly wasm: WasmConverter | undefined;
  private readonly outputs: Uint8Array[] = [];
  private readonly inOffset = 0;
  private readonly outOffsets: number[] = [];
  /** Unblended frames n, n-1, n-2 (motion blur only): views, and offsets in WebAssembly memory. */
  private readonly raws: Uint8Array[] = [];
  private readonly rawOffsets: number[] = [];
  private converted = 0;

  constructor(
    private readonly width: number,
    private readonly height: number,
    slots: number,
    private readonly motionBlur = false,
  ) {
    if (width % 2 !== 0 || height % 2 !== 0)
      throw new RangeError('I420 needs an even width and height');
    const size = i420Size(width, height);
    const raws = motionBlur ? 3 : 0;
    if (width % 8 !== 0) {
      for (let i = 0; i < slots; i++) this.outputs.push(new Uint8Array(size));
      for (let i = 0; i < raws; i++) this.raws.push(new Uint8Array(size));
      return;
    }
    wasmModule ??= new wasmApi.Module(Buffer.from(wasmBase64, 'base64'));
    const exports = new wasmApi.Instance(wasmModule).exports as WasmConverter;
    const align = (n: number): number => (n + 63) & ~63;
    let end = align(width * 4 * CHUNK_ROWS);
    for (let i = 0; i < slots + raws; i++) {
      (i < slots ? this.outOffsets : this.rawOffsets).push(end);
      end = align(end + size);
    }
    const pages = Math.ceil(end / PAGE);
    exports.memory.grow(pages - exports.memory.buffer.byteLength / PAGE);
    // the memory never grows again, so these views stay attached
    for (const off of this.outOffsets)
      this.outputs.push(new Uint8Array(exports.memory.buffer, off, size));
    for (const off of this.rawOffsets)
      this.raws.push(new Uint8Array(exports.memory.buffer, off, size));
    this.wasm = exports;
  }

  /** Converts one RGBA frame into output `slot` (taken modulo the ring) and returns it. */
  convert(rgba: Uint8Array, slot: number): Uint8Array {
    const { width, height } = this;
    const k = slot % this.outputs.length;
    const out = this.outputs[k]!;
    // ring positions of frames n, n-1 and n-2; the first frame stands in for missing ones
    const n = this.converted++;
    const c = n % 3;
    const p1 = n >= 1 ? (n - 1) % 3 : c;
    const p2 = n >= 2 ? (n - 2) % 3 : p1;
    if (!this.wasm) {
      if (!this.motionBlur) return rgbaToI420(rgba, width, height, out);
      rgbaToI420(rgba, width, height, this.raws[c]!);
      return blend121(this.raws[p2]!, this.raws[p1]!, this.raws[c]!, out);
    }
    if (rgba.byteLength < width * height * 4) throw new RangeError('RGBA buffer is too small');
    const heap = new Uint8Array(this.wasm.memory.buffer);
    const base = this.motionBlur ? this.rawOffsets[c]! : this.outOffsets[k]!;
    const cw = width >> 1;
    const planeU = width * height;
    const planeV = planeU + cw * (height >> 1);
    const rowBytes = width * 4;
    for (let r = 0; r < height; r += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, height - r);
      heap.set(rgba.subarray(r * rowBytes, (r + rows) * rowBytes), this.inOffset);
      const y = r * width;
      const uv = (r >> 1) * cw;
      this.wasm.convert(
        this.inOffset,
        width,
        rows,
        base + y,
        base + planeU + uv,
        base + planeV + uv,
      );
      if (this.motionBlur) {
        // the rows just converted, plane by plane
        this.blendRange(p2, p1, c, k, y, rows * width);
        this.blendRange(p2, p1, c, k, planeU + uv, (rows >> 1) * cw);
        this.blendRange(p2, p1, c, k, planeV + uv, (rows >> 1) * cw);
      }
    }
    return out;
  }

  private blendRange(p2: number, p1: number, c: number, k: number, at: number, n: number): void {
    const raw = this.rawOffsets;
    this.wasm!.blend121(raw[p2]! + at, raw[p1]! + at, raw[c]! + at, this.outOffsets[k]! + at, n);
  }
}

/**
 * Image decoding with bounded dimensions: the width and height are read from the
 * file's header (PNG, JPEG, GIF, BMP, WebP) before anything is decoded, so a crafted
 * 30,000 x 30,000 image costs a few bytes of reading, not gigabytes of pixels.
 * Raises ImageRejectedError for an image over the bounds or in a format whose size
 * cannot be read; decoding errors come from the decoder as they are.
 */
import { loadImage, type Image } from '@napi-rs/canvas';

/** Longest side accepted. */
export const MAX_IMAGE_SIDE = 16384;
/** Most pixels accepted in one image (~160 MB decoded). */
export const MAX_IMAGE_PIXELS = 40_000_000;

export class ImageRejectedError extends Error {
  override readonly name = 'ImageRejectedError';
}

/** Width and height from the header, or undefined when the format is not recognised. */
export function imageDimensions(b: Uint8Array): { width: number; height: number } | undefined {
  const u16be = (o: number): number => (b[o]! << 8) | b[o + 1]!;
  const u32be = (o: number): number => ((b[o]! << 24) | (b[o + 1]! << 16) | u16be(o + 2)) >>> 0;
  const u16le = (o: number): number => b[o]! | (b[o + 1]! << 8);
  const u24le = (o: number): number => u16le(o) | (b[o + 2]! << 16);
  const ascii = (o: number, s: string): boolean =>
    [...s].every((c, i) => b[o + i] === c.charCodeAt(0));
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 'PNG') && ascii(12, 'IHDR'))
    return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && ascii(0, 'GIF8')) return { width: u16le(6), height: u16le(8) };
  if (b.length >= 26 && ascii(0, 'BM'))
    return {
      width: Math.abs(new DataView(b.buffer, b.byteOffset).getInt32(18, true)),
      height: Math.abs(new DataView(b.buffer, b.byteOffset).getInt32(22, true)),
    };
  if (b.length >= 30 && ascii(0, 'RIFF') && ascii(8, 'WEBP')) {
    if (ascii(12, 'VP8X')) return { width: u24le(24) + 1, height: u24le(27) + 1 };
    if (ascii(12, 'VP8L')) {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (ascii(12, 'VP8 ')) return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    // walk the JPEG markers to the first start-of-frame
    let o = 2;
    while (o + 9 < b.length) {
      if (b[o] !== 0xff) return undefined;
      const marker = b[o + 1]!;
      if (marker === 0xff) {
        o++;
        continue;
      }
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
        o += 2;
        continue;
      }
      const isSof =
        marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isSof) return { width: u16be(o + 7), height: u16be(o + 5) };
      o += 2 + u16be(o + 2);
    }
  }
  return undefined;
}

/** Throws ImageRejectedError unless the image's header gives a size within the bounds. */
export function checkImageSize(bytes: Uint8Array, what: string): { width: number; height: number } {
  const size = imageDimensions(bytes);
  if (!size) throw new ImageRejectedError(`${what}: not a PNG, JPEG, GIF, BMP or WebP image`);
  const { width, height } = size;
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS)
    throw new ImageRejectedError(
      `${what}: ${width}x${height} is larger than allowed (${MAX_IMAGE_SIDE} a side, ${MAX_IMAGE_PIXELS / 1e6} megapixels)`,
    );
  return size;
}

/** Decodes an image after checking its size (ImageRejectedError when too large or unknown). */
export async function loadBoundedImage(bytes: Uint8Array, what: string): Promise<Image> {
  checkImageSize(bytes, what);
  return loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

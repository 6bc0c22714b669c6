/** Replays and beatmaps of the made osu! fixture set, and replay bytes broken in chosen ways. */
import { readFileSync } from 'node:fs';
import { madeOsuFixture } from '@platform/testing';

export function readFixture(name: string): Buffer {
  return readFileSync(madeOsuFixture(name));
}

/** The LZMA frame block starts after the header strings and counts; corrupt a byte in it. */
export function corruptLzma(replay: Buffer): Buffer {
  const copy = Buffer.from(replay);
  // Header: mode(1) version(4) 3 strings, 6 shorts, int, short, bool, int mods, string lifebar, long, int length.
  let offset = 5;
  const skipString = () => {
    const marker = copy[offset]!;
    offset += 1;
    if (marker === 0x0b) {
      let length = 0;
      let shift = 0;
      for (;;) {
        const byte = copy[offset]!;
        offset += 1;
        length |= (byte & 0x7f) << shift;
        if ((byte & 0x80) === 0) break;
        shift += 7;
      }
      offset += length;
    }
  };
  skipString();
  skipString();
  skipString();
  offset += 6 * 2 + 4 + 2 + 1 + 4;
  skipString();
  offset += 8;
  const length = copy.readInt32LE(offset);
  offset += 4;
  // Overwrite the LZMA properties byte and dictionary size with nonsense.
  copy.fill(0xff, offset, offset + Math.min(13, length));
  return copy;
}

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import {
  imageDimensions,
  ImageRejectedError,
  loadBoundedImage,
} from '../../src/image/bounded-image.js';
import { loadSkin } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'osu-image-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function crc32(b: Uint8Array): number {
  let c = ~0;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid-looking PNG that claims `w` x `h` (one compressed row of data: a decoder would allocate first). */
function hugePng(w: number, h: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(w * 4 + 1))),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

describe('bounded image decoding', () => {
  test('reads the size from PNG, JPEG and GIF headers', async () => {
    const c = createCanvas(37, 21);
    assert.deepEqual(imageDimensions(c.toBuffer('image/png')), { width: 37, height: 21 });
    assert.deepEqual(imageDimensions(c.toBuffer('image/jpeg')), { width: 37, height: 21 });
    assert.deepEqual(imageDimensions(Buffer.from('GIF89a\x05\x00\x07\x00', 'latin1')), {
      width: 5,
      height: 7,
    });
    assert.equal(imageDimensions(Buffer.from('not an image')), undefined);
    const img = await loadBoundedImage(c.toBuffer('image/png'), 'test');
    assert.equal(img.width, 37);
  });

  test('a 30,000 x 30,000 PNG is refused before decoding', async () => {
    const before = process.memoryUsage().rss;
    await assert.rejects(loadBoundedImage(hugePng(30000, 30000), 'skin image cursor'), (err) => {
      assert.ok(err instanceof ImageRejectedError);
      assert.match(err.message, /30000x30000 is larger than allowed/);
      return true;
    });
    assert.ok(process.memoryUsage().rss - before < 200 << 20);
    await assert.rejects(loadBoundedImage(Buffer.from('junk'), 'x'), ImageRejectedError);
  });

  test('a skin with a 30,000 x 30,000 image loads without it, saying why', async () => {
    const skinDir = join(dir, 'skin');
    mkdirSync(skinDir);
    writeFileSync(join(skinDir, 'skin.ini'), '[General]\nName: Huge\n');
    writeFileSync(join(skinDir, 'cursor.png'), hugePng(30000, 30000));
    writeFileSync(join(skinDir, 'hitcircle.png'), createCanvas(8, 8).toBuffer('image/png'));
    const lines: string[] = [];
    const skin = await loadSkin(skinDir, (l) => lines.push(l));
    assert.equal(skin.get('cursor'), undefined);
    assert.ok(skin.get('hitcircle'));
    assert.ok(
      lines.some((l) => /skin image cursor: 30000x30000 is larger than allowed/.test(l)),
      lines.join('\n'),
    );
  });
});

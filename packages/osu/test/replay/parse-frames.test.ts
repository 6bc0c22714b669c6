/**
 * The frame parser's byte-level fast path gives what `Number` gives: compared with the
 * plain reading (split on ',' and '|', `Number` per field) on common and odd frame text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFrames } from '../../src/replay/decode-replay.js';

/** The plain reading, as the decoder read frames before the fast path. */
function plainFrames(text: string) {
  const frames: Array<{ time: number; delta: number; x: number; y: number; keys: number }> = [];
  let time = 0;
  for (const part of text.split(',')) {
    if (!part.trim()) continue;
    const f = part.split('|');
    if (f.length !== 4) throw new Error('fields');
    const [delta, x, y, keys] = f.map(Number) as [number, number, number, number];
    if (![delta, x, y, keys].every(Number.isFinite)) throw new Error('numeric');
    if (delta !== -12345) time += delta;
    frames.push({ time, delta, x, y, keys: keys | 0 });
  }
  return frames;
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

test('same frames as Number reads them, on common and odd text', () => {
  let seed = 7;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
  const number = () => {
    const r = random();
    if (r < 0.3) return String(Math.floor(random() * 40) - 5);
    if (r < 0.6) return (random() * 600 - 50).toFixed(Math.floor(random() * 8));
    if (r < 0.7) return String(random() * 512); // up to 17 significant digits
    return [
      '-0',
      '0.0',
      '007',
      '1.',
      '.5',
      '-.5',
      '+3',
      ' 4',
      '5 ',
      '1e3',
      '0x1f',
      '',
      '-',
      '12345678901234567',
      '0.1000000000000001',
      '123456789012345.6',
    ][Math.floor(random() * 16)]!;
  };
  for (let round = 0; round < 3000; round += 1) {
    const parts = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
      random() < 0.05
        ? ['', ' ', '1|2|3', '1|2|3|4|5'][Math.floor(random() * 4)]!
        : `${number()}|${number()}|${number()}|${number()}`,
    );
    const text = parts.join(',') + (random() < 0.5 ? ',' : '');
    let expected: unknown;
    try {
      expected = plainFrames(text);
    } catch {
      expected = 'throws';
    }
    let actual: unknown;
    try {
      actual = parseFrames(bytes(text));
    } catch {
      actual = 'throws';
    }
    assert.deepEqual(actual, expected, JSON.stringify(text));
    if (Array.isArray(expected))
      for (const [i, frame] of expected.entries())
        for (const key of ['delta', 'x', 'y'] as const)
          assert.ok(
            Object.is((actual as typeof expected)[i]![key], frame[key]),
            `${text}: -0 kept`,
          );
  }
});

test('the seed frame and the skip frames of a stable replay', () => {
  const frames = parseFrames(
    bytes('0|256|-500|0,-1|256|-500|0,16|100.5|200.25|5,-12345|0|0|7788,'),
  );
  assert.deepEqual(
    frames.map((f) => [f.time, f.delta, f.x, f.y, f.keys]),
    [
      [0, 0, 256, -500, 0],
      [-1, -1, 256, -500, 0],
      [15, 16, 100.5, 200.25, 5],
      [15, -12345, 0, 0, 7788],
    ],
  );
});

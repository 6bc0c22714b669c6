/**
 * The LZMA decoder against the reference encoder (xz-utils' `xz --format=lzma`), whose
 * streams use every kind of packet (literals, matched literals, matches, the four
 * repeats, short repeats, long distances, the end marker); the project's own encoder
 * writes literals only. Skips loudly where `xz` is not installed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { LzmaError, lzmaDecode } from '../../src/lzma/lzma-decode.js';

const hasXz = spawnSync('xz', ['--version']).status === 0;
const skip = hasXz ? false : 'xz (xz-utils) is not installed';
if (skip) process.stderr.write(`SKIP (loud): ${skip}\n`);

/** `.lzma` of `data` by xz with the given options. */
function xzLzma(data: Uint8Array, options: string[]): Uint8Array {
  const run = spawnSync('xz', ['--format=lzma', '--stdout', ...options], { input: data });
  assert.equal(run.status, 0, run.stderr.toString());
  return new Uint8Array(run.stdout);
}

/** Replay-like text (frames repeat with small changes) and noise, from a fixed seed. */
function sampleData(bytes: number, seed: number): Uint8Array {
  let x = seed;
  const random = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const part =
      random() < 0.8
        ? `${Math.floor(random() * 20)}|${(random() * 512).toFixed(4)}|${(random() * 384).toFixed(2)}|${Math.floor(random() * 16)},`
        : String.fromCharCode(...Array.from({ length: 40 }, () => Math.floor(random() * 256)));
    parts.push(part);
    length += part.length;
  }
  return new Uint8Array(Buffer.from(parts.join(''), 'latin1').subarray(0, bytes));
}

test('decodes what xz encodes, for every preset and the lc/lp/pb settings', { skip }, () => {
  const cases: Array<[number, number, string[]]> = [
    [0, 1, []],
    [1, 2, ['-0']],
    [5_000, 3, ['-1']],
    [200_000, 4, ['-6']],
    [300_000, 5, ['-9e']],
    [50_000, 6, ['--lzma1=preset=6,lc=0,lp=2,pb=0']],
    [50_000, 7, ['--lzma1=preset=6,lc=4,lp=0,pb=4']],
    [50_000, 8, ['--lzma1=preset=3,lc=1,lp=1,pb=1,mf=hc4']],
  ];
  for (const [bytes, seed, options] of cases) {
    const data = sampleData(bytes, seed);
    const packed = xzLzma(data, options);
    assert.deepEqual(lzmaDecode(packed), data, `${bytes} bytes, ${options.join(' ')}`);
  }
  // Long runs (short repeats, long matches) and a long-distance repeat past 64 KiB.
  const runs = new Uint8Array(400_000);
  const block = sampleData(70_000, 9);
  runs.set(block, 0);
  runs.set(block, 300_000);
  assert.deepEqual(lzmaDecode(xzLzma(runs, ['-6'])), runs);
});

test('a truncated xz stream and one cut short of its size raise LzmaError', { skip }, () => {
  const packed = xzLzma(sampleData(20_000, 10), ['-6']);
  for (const cut of [14, 100, packed.length - 1]) {
    assert.throws(() => lzmaDecode(packed.subarray(0, cut)), LzmaError, `cut at ${cut}`);
  }
  assert.throws(() => lzmaDecode(packed, 10_000), LzmaError);
});

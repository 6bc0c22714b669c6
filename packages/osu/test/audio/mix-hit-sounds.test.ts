import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { defaultSample, SAMPLE_RATE } from '../../src/audio/default-samples.js';
import { mixHitSounds } from '../../src/audio/mix-hit-sounds.js';

const dir = mkdtempSync(join(tmpdir(), 'osu-mix-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function read(path: string): Int16Array {
  const b = readFileSync(path);
  return new Int16Array(b.buffer, b.byteOffset, b.byteLength / 2);
}

describe('mixHitSounds', () => {
  test('places each sound at its real time (speed applied), pans by x, scales by volume', async () => {
    const click = new Float32Array(200).fill(0.5); // 100 stereo frames
    const out = join(dir, 'a.pcm');
    const mixed = await mixHitSounds(
      [
        { sound: { time: 1000 + 750, x: 0, volume: 1, candidates: [] }, pcm: click },
        { sound: { time: 1000 + 3000, x: 512, volume: 0.5, candidates: [] }, pcm: click },
        { sound: { time: 1000 + 60_000, x: 256, volume: 1, candidates: [] }, pcm: click },
      ],
      { startTime: 1000, speed: 1.5, durationSeconds: 2.5, volume: 1, outputPath: out },
    );
    assert.equal(mixed, 2, 'the sound after the end is left out');
    const pcm = read(out);
    assert.equal(pcm.length, Math.ceil(2.5 * SAMPLE_RATE) * 2);
    // 750 ms of map time at 1.5x = 0.5 s of video
    const a = Math.round(0.5 * SAMPLE_RATE);
    assert.equal(pcm[(a - 1) * 2], 0);
    // x = 0: pan -0.4, left full, right 0.6
    assert.ok(Math.abs(pcm[a * 2]! / 32767 - 0.5) < 0.001, `left ${pcm[a * 2]}`);
    assert.ok(Math.abs(pcm[a * 2 + 1]! / 32767 - 0.3) < 0.001, `right ${pcm[a * 2 + 1]}`);
    const b = Math.round(2 * SAMPLE_RATE);
    assert.ok(Math.abs(pcm[b * 2]! / 32767 - 0.15) < 0.001, `left ${pcm[b * 2]}`);
    assert.ok(Math.abs(pcm[b * 2 + 1]! / 32767 - 0.25) < 0.001, `right ${pcm[b * 2 + 1]}`);
    assert.equal(pcm[(b + 100) * 2], 0);
  });

  test('sounds that overlap add up and clip instead of wrapping', async () => {
    const loud = new Float32Array(20).fill(0.9);
    const out = join(dir, 'b.pcm');
    const s = { time: 0, x: 256, volume: 1, candidates: [] };
    await mixHitSounds(
      [
        { sound: s, pcm: loud },
        { sound: s, pcm: loud },
      ],
      { startTime: 0, speed: 1, durationSeconds: 0.01, volume: 1, outputPath: out },
    );
    assert.equal(read(out)[0], 32767);
  });

  test('every default sample exists for the three sets and is audible', () => {
    for (const set of ['normal', 'soft', 'drum'])
      for (const s of ['hitnormal', 'hitwhistle', 'hitfinish', 'hitclap', 'slidertick']) {
        const pcm = defaultSample(`${set}-${s}`)!;
        assert.ok(pcm && pcm.length > 0, `${set}-${s}`);
        const peak = pcm.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        assert.ok(peak > 0.05 && peak <= 1, `${set}-${s} peak ${peak}`);
      }
    assert.equal(defaultSample('normal-sliderslide'), undefined);
  });
});

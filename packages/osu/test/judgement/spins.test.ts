import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { madeOsuFixture } from '@platform/testing';
import { parseBeatmap } from '../../src/beatmap/parse-beatmap.js';
import { preparePlayable } from '../../src/beatmap/playable.js';
import { judgePlayable } from '../../src/judgement/judge-replay.js';
import { decodeReplay } from '../../src/replay/decode-replay.js';
import { madeFixture } from '../helpers.js';

describe('spinner tracks (for drawing the spinner as it was spun)', () => {
  const play = (name: string) => {
    const replay = decodeReplay(madeFixture(name));
    const p = preparePlayable(
      parseBeatmap(readFileSync(madeOsuFixture('made.osu'), 'utf8')),
      replay.mods,
    );
    return { p, j: judgePlayable(replay, p) };
  };

  test('a cleared spinner: turns counted frame by frame up to at least the turns it needs', () => {
    const { p, j } = play('perfect.osr');
    const spinner = p.objects.find((o) => o.kind === 'spinner')!;
    assert.equal(j.objectResults[spinner.index], 300);
    const track = j.spins?.get(spinner.index);
    assert.ok(track && track.times.length > 10, 'frames recorded during the spinner');
    assert.ok(track.times.every((t) => t >= spinner.time && t <= spinner.endTime));
    const turns = Math.abs(track.angles.at(-1)!) / (2 * Math.PI);
    assert.ok(turns >= track.needed, `${turns} turns of ${track.needed}`);
    const magnitudes = track.angles.map(Math.abs);
    assert.ok(
      magnitudes.every((a, i) => i === 0 || a >= magnitudes[i - 1]! - 1e-9),
      'one direction',
    );
  });

  test('a spinner never spun: no turns', () => {
    const { p, j } = play('missed.osr');
    const spinner = p.objects.find((o) => o.kind === 'spinner')!;
    const track = j.spins?.get(spinner.index);
    assert.equal(Math.abs(track?.angles.at(-1) ?? 0), 0);
  });
});

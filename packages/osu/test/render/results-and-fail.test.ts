import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { madeOsuFixture } from '@platform/testing';
import {
  decodeReplay,
  encodeReplay,
  Mods,
  renderReplay,
  type RenderOptions,
} from '../../src/index.js';
import { madeFixture, skipWithoutFfmpeg, smallRenderOptions, videoFrameAt } from '../helpers.js';

const skip = skipWithoutFfmpeg();
const out = mkdtempSync(join(tmpdir(), 'osu-results-test-'));
after(() => (process.env.KEEP_OUT ? undefined : rmSync(out, { recursive: true, force: true })));
copyFileSync(madeOsuFixture('made.osu'), join(out, 'made.osu'));

const W = 320;
const H = 180;
const options = smallRenderOptions(W, H, 10);

async function render(name: string, replay: Uint8Array, extra: Partial<RenderOptions> = {}) {
  const lines: string[] = [];
  const video = join(out, `${name}.mp4`);
  const r = await renderReplay({
    replay,
    beatmapPath: join(out, 'made.osu'),
    outputVideoPath: video,
    outputThumbnailPath: join(out, `${name}.jpg`),
    options: { ...options, ...extra },
    log: (l) => lines.push(l),
  });
  return { r, lines, video };
}

/** Pixels of a frame in a rectangle that pass `test`. */
function count(
  px: (x: number, y: number) => [number, number, number],
  [x0, y0, x1, y1]: [number, number, number, number],
  test: (rgb: [number, number, number]) => boolean,
): number {
  let n = 0;
  for (let y = Math.round(y0); y < y1; y++)
    for (let x = Math.round(x0); x < x1; x++) if (test(px(x, y))) n++;
  return n;
}

describe('results screen and failing', { skip }, () => {
  test('a completed play ends on 5 s of ranking panel with its grade (SS, gold)', async () => {
    const perfect = madeFixture('perfect.osr');
    const without = await render('plain', perfect, { resultsScreen: false });
    const withResults = await render('results', perfect);
    assert.ok(
      Math.abs(withResults.r.durationSeconds - without.r.durationSeconds - 5) < 0.01,
      `${withResults.r.durationSeconds} vs ${without.r.durationSeconds}`,
    );
    const last = videoFrameAt(withResults.video, withResults.r.frames - 1, W);
    const gold = ([r, g, b]: [number, number, number]): boolean => r > 200 && g > 160 && b < 140;
    // the grade is drawn right of centre (the cursor, yellow, rests in the middle)
    const box: [number, number, number, number] = [W * 0.62, H * 0.22, W * 0.88, H * 0.62];
    const grade = count(last, box, gold);
    assert.ok(grade > 200, `gold grade pixels: ${grade}`);
    const plainLast = videoFrameAt(without.video, without.r.frames - 1, W);
    assert.equal(count(plainLast, box, gold), 0, 'no panel without the option');
  });

  test('Sudden Death: the play stops at the first miss and fades out under FAILED, no results', async () => {
    const replay = decodeReplay(madeFixture('missed.osr'));
    replay.mods |= Mods.SuddenDeath;
    const { r, lines, video } = await render('sd', encodeReplay(replay));
    const failLine = lines.find((l) => l.startsWith('the play fails at'));
    assert.ok(failLine?.includes('sudden death'), lines.join('\n'));
    const failAt = Number(/fails at (-?\d+) ms/.exec(failLine ?? '')?.[1]);
    // the video ends two seconds after the fail
    const end = r.startTimeMs + r.durationSeconds * 1000 * r.speed;
    assert.ok(Math.abs(end - (failAt + 2000)) < 150, `ends at ${end}, failed at ${failAt}`);
    assert.equal(r.judgement.misses, 1, 'only the miss that failed the play is counted');
    const last = videoFrameAt(video, r.frames - 1, W);
    const red = ([rr, g, b]: [number, number, number]): boolean => rr > 150 && g < 90 && b < 90;
    const centre = count(last, [W / 4, H / 3, (3 * W) / 4, (2 * H) / 3], red);
    assert.ok(centre > 50, `red FAILED pixels: ${centre}`);
  });
});

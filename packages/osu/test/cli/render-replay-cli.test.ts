import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { main } from '../../src/cli/render-replay.js';
import { madeOsuFixture, madeOsuFixturesDir, madeReplayJudgement } from '@platform/testing';
import { fixturesDir, skipWithoutFfmpeg, skipWithoutFixtures } from '../helpers.js';

/** Fidelity to a real replay, judged as the game did: needs the real files. */
const fidelity = { skip: skipWithoutFixtures() };
const made = madeOsuFixturesDir();
const perfect = madeReplayJudgement('perfect.osr');
const out = mkdtempSync(join(tmpdir(), 'osu-cli-test-'));
after(() => rmSync(out, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const o = new PassThrough();
  const e = new PassThrough();
  let stdout = '';
  let stderr = '';
  o.on('data', (d: Buffer) => (stdout += d.toString()));
  e.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await main(args, o, e);
  return { code, stdout, stderr };
}

describe('render-replay CLI', () => {
  test('judge --json prints computed and header counts', fidelity, async () => {
    const r = await run([
      'judge',
      join(fixturesDir, 'realdate.osr'),
      '--beatmaps',
      fixturesDir,
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      computed: Record<string, number>;
      header: Record<string, number>;
    };
    assert.deepEqual(Object.keys(j.computed), [
      'n300',
      'n100',
      'n50',
      'misses',
      'maxCombo',
      'unstableRate',
    ]);
    assert.deepEqual(j.header, { n300: 316, n100: 50, n50: 0, misses: 9, maxCombo: 318 });
    assert.deepEqual(
      { ...j.computed, unstableRate: undefined },
      { ...j.header, unstableRate: undefined },
    );
  });

  test('the canvas library loads with the readback allocator setting (canvas-allocator.ts)', () => {
    // a fresh process, as a user runs it: mimalloc prints its options when verbose
    const bin = fileURLToPath(new URL('../../bin/render-replay.mjs', import.meta.url));
    const env: NodeJS.ProcessEnv = { ...process.env, MIMALLOC_VERBOSE: '1' };
    delete env.MIMALLOC_PURGE_DELAY;
    const r = spawnSync(process.execPath, [bin, '--help'], { env, encoding: 'utf8' });
    assert.match(r.stderr, /option 'purge_delay': 1000\b/, r.stderr.slice(0, 2000));
  });

  test(
    'started without the frame-loop flags, the bin renders with them (no "frames left to V8")',
    { skip: skipWithoutFfmpeg() },
    () => {
      const bin = fileURLToPath(new URL('../../bin/render-replay.mjs', import.meta.url));
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.NODE_OPTIONS;
      delete env.RENDER_REPLAY_RESTARTED;
      const video = join(out, 'flags.mp4');
      const args = [bin, madeOsuFixture('perfect.osr'), '--beatmaps', made, '-o', video];
      const small = ['--width', '128', '--height', '72', '--fps', '10', '--no-motion-blur'];
      const r = spawnSync(process.execPath, [...args, ...small], { env, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr.slice(-2000));
      assert.ok(statSync(video).size > 1000);
      assert.match(r.stderr, /options: /, r.stderr.slice(-2000));
      assert.doesNotMatch(r.stderr, /frames left to V8/);
      // the exit code of the restarted CLI is the bin's
      const usage = spawnSync(process.execPath, [bin, 'judge'], { env, encoding: 'utf8' });
      assert.equal(usage.status, 2, usage.stderr);
    },
  );

  test('judge prints a table; usage errors exit 2; missing beatmap exits 1', async () => {
    const r = await run(['judge', madeOsuFixture('perfect.osr'), '--beatmaps', made]);
    assert.equal(r.code, 0);
    const counts = `${perfect.n300}\\s+0\\s+0\\s+0\\s+${perfect.maxCombo}`;
    assert.match(r.stdout, new RegExp(`computed\\s+${counts}`));
    assert.match(r.stdout, new RegExp(`header\\s+${counts}`));
    assert.equal((await run(['judge'])).code, 2);
    assert.equal((await run([madeOsuFixture('other-map.osr'), '--beatmaps', made])).code, 1);
    const taiko = await run(['judge', madeOsuFixture('taiko.osr'), '--beatmaps', made]);
    assert.equal(taiko.code, 1);
    assert.match(taiko.stderr, /not supported/);
  });

  test('renders a video', { skip: skipWithoutFfmpeg() }, async () => {
    const video = join(out, 'cli.mp4');
    const r = await run([
      madeOsuFixture('perfect.osr'),
      '--beatmaps',
      made,
      '--width',
      '256',
      '--height',
      '144',
      '--fps',
      '20',
      '--no-motion-blur',
      '-o',
      video,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(statSync(video).size > 1000);
    assert.ok(statSync(join(out, 'cli.jpg')).size > 100);
    assert.match(r.stderr, /100%/);
  });

  test(
    'overlay flags reach the render: results screen off, dims, lighting',
    { skip: skipWithoutFfmpeg() },
    async () => {
      const base = [
        madeOsuFixture('perfect.osr'),
        '--beatmaps',
        made,
        '--width',
        '128',
        '--height',
        '72',
        '--fps',
        '10',
        '--no-motion-blur',
      ];
      const duration = (stdout: string): number => Number(/, ([\d.]+) s\)/.exec(stdout)?.[1]);
      const withResults = await run([...base, '-o', join(out, 'r1.mp4')]);
      const without = await run([
        ...base,
        '--no-results-screen',
        '--intro-dim',
        '50',
        '--break-dim',
        '0.1',
        '--hit-lighting',
        '--cursor-size',
        '1.5',
        '-o',
        join(out, 'r2.mp4'),
      ]);
      assert.equal(without.code, 0, without.stderr);
      assert.ok(
        Math.abs(duration(withResults.stdout) - duration(without.stdout) - 5) < 0.01,
        `${withResults.stdout} / ${without.stdout}`,
      );
      assert.match(without.stderr, /results_screen false/);
    },
  );
});

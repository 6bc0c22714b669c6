/**
 * The short seeded analytics chaos run (issue 21): `chaos/chaos.ts` with 20 faults, each
 * a build killed with SIGKILL, its disk filled (fiu-run) or the power cut (build and
 * service killed, the service restarted on a copy of DATA_DIR taken before) at a seeded
 * step while the service answers reads. It fails when a read is not a 200 of a whole
 * build, the DuckDB file does not open after a kill, the next build fails or is not
 * served, or a killed build's scratch copy is left behind. Files in a temp folder only;
 * every wait is bounded by the builds' own progress.
 *
 * Seed 21 draws 7 kills, 6 full disks and 7 power losses over steps 0–5 (with fiu-run;
 * without it the disk faults become the other two kinds, said in the log). The test also
 * holds that every kind was drawn: a seed that misses one (CHAOS_SEED; about 1 in 1,000
 * at 20 faults) fails here rather than testing less. A fault costs about 3 s quiet
 * (README, "Chaos (issue 21)"): about 80 s with the set-up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { fiuAvailable, runChaosHarness } from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));

test('analytics chaos: builds killed at seeded steps leave the previous gold serving', async (t) => {
  const seed = String(Number(process.env.CHAOS_SEED ?? 21));
  const { code, output } = await runChaosHarness(
    t.signal,
    SERVICE_DIR,
    ['--faults', '20', '--seed', seed, '--orders', '500'],
    'analytics chaos',
  );
  assert.equal(code, 0, `the chaos run failed:\n${output.slice(-6000)}`);
  assert.match(output, /faults 20; problems 0/);
  const kinds = fiuAvailable() ? ['kill', 'disk-full', 'power-loss'] : ['kill', 'power-loss'];
  for (const kind of kinds)
    assert.match(output, new RegExp(`^\\| ${kind} after step`, 'm'), `no ${kind} fault drawn`);
});

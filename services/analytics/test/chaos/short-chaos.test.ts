/**
 * The short seeded analytics chaos run (issue 21): `chaos/chaos.ts` kills three builds
 * with SIGKILL, fills their disk (fiu-run) or cuts the power (build and service killed,
 * the service restarted on a copy of DATA_DIR taken before) at seeded steps while the
 * service answers reads. It fails when a read
 * is not a 200 of a whole build, the DuckDB file does not open after a kill, the next
 * build fails or is not served, or a killed build's scratch copy is left behind. Files
 * in a temp folder only; every wait is bounded by the builds' own progress.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runChaosHarness } from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));

test('analytics chaos: builds killed at seeded steps leave the previous gold serving', async (t) => {
  const seed = String(Number(process.env.CHAOS_SEED ?? 21));
  const { code, output } = await runChaosHarness(
    t.signal,
    SERVICE_DIR,
    ['--faults', '3', '--seed', seed, '--orders', '500'],
    'analytics chaos',
  );
  assert.equal(code, 0, `the chaos run failed:\n${output.slice(-6000)}`);
  assert.match(output, /faults 3; problems 0/);
});

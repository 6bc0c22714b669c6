/**
 * The short seeded render chaos run (issue 21): `chaos/chaos.ts` with a few faults on its
 * own PostgreSQL, Redis and s3rver (free ports, throw-away folders; never the shared ones),
 * an API instance and two worker-only instances as processes. It fails on a job answered
 * 202 that does not finish (completed, or failed with a reason), a job rendered twice, a
 * video that is not whole, a 5xx other than 503, or an instance that crashed by itself.
 * Recovery times are printed, not held (`--recovery-bound-ms 0`): a benchmark figure.
 * Every wait inside the harness is bounded by progress (the reaper's windows plus the
 * renders left), so a loaded machine makes the run slower, not red.
 *
 * The second test runs the service on its embedded defaults (one process, PGlite and
 * files): power losses (restarted from a copy of DATA_DIR taken seconds before the kill)
 * and kill -9. The disk faults of that mode (fiu-run) stay in the long run: under fiu-run
 * a fork by the service can get stuck before its exec (libfiu's lock, see the harness),
 * which would make this test fail now and then for the tool's sake;
 * `disk-full.test.ts` covers the full disk's answers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runChaosHarness, skipReason } from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const PG_ROOT = '/usr/lib/postgresql';
const pgBinaries =
  existsSync(PG_ROOT) &&
  readdirSync(PG_ROOT).some((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')));
const has = (command: string) => spawnSync(command, ['--version']).status === 0;
const ffprobe = spawnSync('ffprobe', ['-version']).status === 0;
const skip =
  skipReason('PostgreSQL binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin)', pgBinaries) ??
  skipReason('redis-server on PATH', has('redis-server')) ??
  skipReason('ffprobe on PATH (the videos are probed)', ffprobe);

/** A short seeded run with `args` added; passes on an end state with nothing lost or twice. */
async function shortRun(signal: AbortSignal, args: string[]) {
  const { code, output } = await runChaosHarness(
    signal,
    SERVICE_DIR,
    [
      ...args,
      '--seed',
      String(Number(process.env.CHAOS_SEED ?? 21)),
      '--gap-ms',
      '1000',
      '--pace-ms',
      '2500',
      '--recovery-bound-ms',
      '0',
    ],
    'render chaos',
  );
  assert.equal(code, 0, `the chaos run failed:\n${output.slice(-6000)}`);
  assert.match(output, /lost 0; .*duplicated 0; .*problems 0; service crashes 0/);
}

test('render chaos: seeded faults lose no accepted job and render none twice', { skip }, (t) =>
  shortRun(t.signal, ['--faults', '6']),
);

test(
  'render chaos on the embedded defaults: a power loss loses no job answered before it',
  { skip: skipReason('ffprobe on PATH (the videos are probed)', ffprobe) },
  (t) =>
    shortRun(t.signal, [
      '--engines',
      'embedded',
      '--kinds',
      'power loss,kill -9 service',
      '--faults',
      '3',
    ]),
);

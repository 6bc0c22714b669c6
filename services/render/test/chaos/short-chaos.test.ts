/**
 * The short seeded render chaos run (issue 21): `chaos/chaos.ts` with 12 faults in all, in
 * two runs side by side (they share nothing: each its own engines, ports and folder).
 * `--every-kind` draws the kinds in rounds (each a seeded shuffle), so each run's faults are
 * one of each of its kinds; the seeded independent draws they replaced (28 Nov: 14 and 6
 * faults) covered the same kinds with more faults.
 *
 * - 8 faults on its own PostgreSQL, Redis and s3rver (free ports, throw-away folders;
 *   never the shared ones), an API instance and two worker-only instances as processes:
 *   kill -9 api, kill -9 worker, kill -9 postgres, kill -9 redis, cut and stall of
 *   postgres and of redis.
 * - 4 faults on the embedded defaults (one process, PGlite and files): disk full, disk
 *   failing, power loss, kill -9 service. The
 *   disk faults come from packages/testing's lock-free preload (`spawnUnderFiu`'s
 *   `lockFree`), which replaced libfiu's fiu-run here: under fiu-run a fork by the service
 *   could hang before its exec (libfiu's locks; packages/testing native/disk-faults.c),
 *   which kept them out of this test before.
 *
 * Each fails on a job answered 202 that does not finish (completed, or failed with a
 * reason), a job rendered twice, a video that is not whole, a 5xx other than 503 (or a
 * 503 without `detail` and `Retry-After`), a 202 while the disk refused writes, or an
 * instance that crashed by itself. Recovery times are printed, not held
 * (`--recovery-bound-ms 0`): a benchmark figure. Every wait inside the harness is bounded
 * by progress (the reaper's windows plus the renders left), so a loaded machine makes the
 * run slower, not red.
 *
 * What keeps it short (the long runs keep the harness's defaults): 0.3–0.9 s between
 * faults instead of 2–6 s; each submission asks for a shorter clip of the made replay
 * (30 fps, no results screen, no motion blur: 167 frames instead of 633, at the harness's
 * 320×180), and a submission goes out at each fault's return, so its first 202 is not
 * waited for until the load's next turn.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import {
  assertEveryKindDrawn,
  diskFaultLibrary,
  runChaosHarness,
  skipReason,
} from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const PG_ROOT = '/usr/lib/postgresql';
const pgBinaries =
  existsSync(PG_ROOT) &&
  readdirSync(PG_ROOT).some((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')));
const has = (command: string) => spawnSync(command, ['--version']).status === 0;
const ffprobe = spawnSync('ffprobe', ['-version']).status === 0;
const probeSkip = skipReason('ffprobe on PATH (the videos are probed)', ffprobe);

/** A short seeded run with `args` added; passes on an end state with nothing lost or twice. */
async function shortRun(signal: AbortSignal, faults: number, args: string[]) {
  const { code, output } = await runChaosHarness(
    signal,
    SERVICE_DIR,
    [
      ...args,
      '--faults',
      String(faults),
      '--every-kind',
      '--seed',
      String(Number(process.env.CHAOS_SEED ?? 21)),
      '--gap-ms',
      '300',
      '--pace-ms',
      '2500',
      '--render-options',
      'fps=30,results_screen=false,motion_blur=false',
      '--recovery-bound-ms',
      '0',
    ],
    'render chaos',
  );
  assert.equal(code, 0, `the chaos run failed:\n${output.slice(-6000)}`);
  assert.match(output, new RegExp(`faults ${faults} of ${faults}\\n`));
  assert.match(output, /lost 0; .*duplicated 0; .*problems 0; service crashes 0/);
  assertEveryKindDrawn(output);
}

describe('render chaos, short', { concurrency: 2 }, () => {
  it(
    'seeded faults on PostgreSQL, Redis and S3 lose no accepted job and render none twice',
    {
      skip:
        skipReason(
          'PostgreSQL binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin)',
          pgBinaries,
        ) ??
        skipReason('redis-server on PATH', has('redis-server')) ??
        probeSkip,
    },
    (t) => shortRun(t.signal, 8, []),
  );

  it(
    'seeded faults on the embedded defaults (kill, full or failing disk, power loss) lose no job answered before a power loss',
    {
      skip:
        probeSkip ??
        skipReason(
          'cc to build the disk-fault library (packages/testing native/disk-faults.c)',
          diskFaultLibrary() !== undefined,
        ),
    },
    (t) => shortRun(t.signal, 4, ['--engines', 'embedded']),
  );
});

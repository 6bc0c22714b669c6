/**
 * The short seeded chaos run (issue 21): `chaos/chaos.ts` with 11 faults on its own
 * PostgreSQL and nats-server (free ports, throw-away folders; never the shared ones):
 * `--every-kind` draws each of the 11 kinds once, in a seeded order (the 20 independent
 * draws it replaced on 28 Nov took twice as long and left some kinds out).
 * It fails on an accepted record lost or applied twice, a refused one applied, a key
 * whose final state is not its last accepted event, or a service that crashed by itself.
 * Recovery times are printed, not held (`--recovery-bound-ms 0`): they are a benchmark
 * figure for a quiet machine. Every wait inside the harness is bounded by progress and
 * the service's own settings (outbox lease, reconcile interval, ack wait, its measured
 * start-up), so a loaded machine makes the run slower, not red.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { assertEveryKindDrawn, runChaosHarness, skipReason } from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const PG_ROOT = '/usr/lib/postgresql';
const pgBinaries =
  existsSync(PG_ROOT) &&
  readdirSync(PG_ROOT).some((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')));
const natsServer = spawnSync('nats-server', ['--version']).status === 0;
const skip =
  skipReason('PostgreSQL binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin)', pgBinaries) ??
  skipReason('nats-server on PATH', natsServer);

// A real test again since 27 Nov (09:xx UTC): the last loss of seed 22 (a record at an
// offset below the stored position, fix 7) is closed for every target and for a
// restart; the runs after it are in chaos/FINDINGS.md.
test(
  'chaos: one seeded fault of each kind loses nothing accepted and applies nothing twice',
  // About 2 minutes under a loaded machine's suite (most of it the service's restarts
  // after kill -9). Bounded at 4 so the whole suite stays inside CI's 20 minutes (the
  // harness stops its engines on the way out).
  { skip, timeout: 4 * 60_000 },
  async (t) => {
    // A cancelled test (timeout, Ctrl-C) stops the run, which stops its engines.
    const { code, output } = await runChaosHarness(
      t.signal,
      SERVICE_DIR,
      [
        '--faults',
        '11',
        '--every-kind',
        '--seed',
        '22',
        '--gap-ms',
        '500',
        '--recovery-bound-ms',
        '0',
      ],
      'integration chaos',
    );
    assert.equal(code, 0, `the chaos run failed:\n${output.slice(-6000)}`);
    assert.match(
      output,
      /lost 0; duplicated 0; refused but applied 0; final-state problems 0; service crashes 0/,
    );
    // Each kind once (the disk kinds need disk faults, packages/testing: the run names the
    // kinds it has).
    assertEveryKindDrawn(output);
  },
);

/**
 * The short seeded chaos run (issue 21): `chaos/chaos.ts` with 20 faults on its own
 * PostgreSQL and nats-server (free ports, throw-away folders; never the shared ones).
 * It fails on an accepted record lost or applied twice, a refused one applied, a key
 * whose final state is not its last accepted event, or a service that crashed by itself.
 * Recovery times are printed, not held (`--recovery-bound-ms 0`): they are a benchmark
 * figure for a quiet machine. Every wait inside the harness is bounded by progress and
 * the service's own settings (outbox lease, reconcile interval, ack wait, its measured
 * start-up), so a loaded machine makes the run slower, not red.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { skipReason } from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const PG_ROOT = '/usr/lib/postgresql';
const pgBinaries =
  existsSync(PG_ROOT) &&
  readdirSync(PG_ROOT).some((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')));
const natsServer = spawnSync('nats-server', ['--version']).status === 0;
const skip =
  skipReason('PostgreSQL binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin)', pgBinaries) ??
  skipReason('nats-server on PATH', natsServer);

// Runs and reports, but does not fail the suite yet: accepted records can still miss a
// target after faults (seed 23, 26 Nov: csv lacked 11 creates whose neighbours it holds;
// README, "Chaos"). Drop `todo` once the harness passes a few seeds in a row.
const todo =
  'a few accepted records can still miss a target after faults (issue 21, open; see the README)';

test(
  'chaos: 20 seeded faults lose nothing accepted and apply nothing twice',
  // 2.5–3 minutes on a quiet machine. Bounded at 4 so the whole suite stays inside CI's
  // 20 minutes (it took 18.5 at the end of 26 Nov); while it is a todo, a run cut off by
  // the bound reports without failing the suite.
  { skip, todo: skip ? undefined : todo, timeout: 4 * 60_000 },
  async (t) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'chaos/chaos.ts',
        '--faults',
        '20',
        '--seed',
        '21',
        '--gap-ms',
        '500',
        '--recovery-bound-ms',
        '0',
      ],
      { cwd: SERVICE_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // A cancelled test (timeout, Ctrl-C) stops the run, which stops its engines.
    t.signal.addEventListener('abort', () => child.kill('SIGTERM'));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    process.stdout.write(output.slice(output.indexOf('\nintegration chaos')));
    assert.equal(code, 0, `the chaos run failed:\n${output.slice(-6000)}`);
    assert.match(
      output,
      /lost 0; duplicated 0; refused but applied 0; final-state problems 0; service crashes 0/,
    );
  },
);

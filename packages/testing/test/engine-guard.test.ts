/**
 * guardEngines stops a harness's engines on a signal even when the signal comes twice
 * (issue 21): `npm run chaos` forwards SIGINT/SIGTERM to the harness, and Ctrl-C or a
 * `kill` of the process group also reaches the harness itself, so it gets the signal
 * twice. The guard listened once: the second signal, arriving while it stopped the newer
 * engines, killed the harness before it reached PostgreSQL (started first, stopped last),
 * and pg_ctl's daemon kept running with its folder.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { skipReason } from '../src/index.js';

const PG_ROOT = '/usr/lib/postgresql';
const skip = skipReason(
  'PostgreSQL binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin)',
  existsSync(PG_ROOT) &&
    readdirSync(PG_ROOT).some((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb'))),
);

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

test(
  'a second SIGTERM while the guard stops the engines does not leave PostgreSQL running',
  { skip, timeout: 120_000 },
  async (t) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('fixtures/guarded-engines.ts', import.meta.url))],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let output = '';
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const look = () => {
          if (output.includes(text)) return resolve();
          if (child.exitCode !== null || child.signalCode !== null)
            return reject(new Error(`exited before "${text}":\n${output}`));
          setTimeout(look, 20);
        };
        look();
      });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    await seen('postgres up on ');
    const port = Number(/postgres up on (\d+)/.exec(output)![1]);
    t.after(() => {
      // The old guard's leftover, found by its port, so the machine is clean either way.
      child.kill('SIGKILL');
      const leftover = spawnSync('pgrep', ['-f', `postgres -D /tmp/chaos-pg-.* -p ${port} `], {
        encoding: 'utf8',
      });
      for (const pid of leftover.stdout.split('\n').filter(Boolean))
        process.kill(Number(pid), 'SIGKILL');
    });

    child.kill('SIGTERM');
    await seen('stopping the slow engine');
    child.kill('SIGTERM');
    child.stdin!.write('go\n');
    const [code, signal] = await exited;
    assert.deepEqual([code, signal], [143, null], `stopped by its guard:\n${output}`);
    assert.equal(await portOpen(port), false, 'PostgreSQL was stopped');
  },
);

/**
 * A PGlite whose WAL write fails in a COMMIT answers, and the driver recovers (issue 21).
 * PostgreSQL PANICs there holding `WALWriteLock`; PGlite keeps the backend and its own
 * `exec` sends a Sync after the failed COMMIT, which commits again and waits for that lock
 * forever (a no-op semaphore in WebAssembly: one core at 100 %, the process answers
 * nothing; the render service's embedded chaos run hung so, found in `XLogFlush` under
 * `CommitTransactionCommand`). The fault is real: packages/testing's disk-fault library
 * makes the child's positioned writes fail with ENOSPC, as a full disk would.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ENOSPC,
  diskFaultLibrary,
  setDiskFull,
  skipReason,
  spawnUnderFiu,
  until,
} from '@platform/testing';
import { isDiskFailure } from '../../src/index.js';

type Answer = { ready?: true; ok?: boolean; code?: string; message?: string; rows?: unknown[] };

const skip = skipReason('cc (to build the disk-fault library)', diskFaultLibrary() !== undefined);

test(
  'a COMMIT whose WAL write fails is refused, the process keeps answering, and the driver reopens',
  { skip, timeout: 240_000 },
  async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'pglite-panic-'));
    const child = spawnUnderFiu(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('pglite-panic-child.ts', import.meta.url)),
        join(work, 'data'),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
      false,
      { lockFree: true },
    );
    t.after(() => {
      child.kill('SIGKILL');
      rmSync(work, { recursive: true, force: true });
    });
    const answers: Answer[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) =>
      answers.push(JSON.parse(line) as Answer),
    );
    // A bound that catches the hang (the spinning process never answers), not a timing.
    const ask = async (line: string) => {
      const seen = answers.length;
      child.stdin!.write(`${line}\n`);
      await until(`an answer to "${line}" (PGlite spinning?)`, 60_000, () =>
        Promise.resolve(answers.length > seen),
      );
      return answers[seen]!;
    };
    await until('the child to open its database', 120_000, () =>
      Promise.resolve(answers.length > 0),
    );
    assert.deepEqual(answers[0], { ready: true });
    assert.equal((await ask('commit 1')).ok, true);

    setDiskFull(child.pid!, true, ENOSPC);
    const refused = await ask('commit 2');
    assert.equal(refused.ok, false, 'a commit was acknowledged on a full disk');
    assert.equal(refused.code, '53100', refused.message);
    assert.match(refused.message!, /PANIC.*could not write to log file.*No space left/);
    assert.ok(isDiskFailure(refused), 'a disk failure: 503 upstream');

    setDiskFull(child.pid!, false);
    // The stopped instance was retired; a new one opens at most once a second.
    let again = await ask('commit 3');
    for (let i = 0; i < 50 && !again.ok; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await ask('commit 3');
    }
    assert.equal(again.ok, true, again.message);
    // The refused COMMIT's WAL never reached the file: the reopened instance has 1 and 3.
    assert.deepEqual((await ask('rows')).rows, [{ id: 1 }, { id: 3 }]);
  },
);

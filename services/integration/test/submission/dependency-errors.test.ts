/**
 * The 503 a disk failure gets says "nothing was stored" only when that is certain
 * (issue 21 item 4). After PGlite's WAL sync failed the commit is in doubt: the row is in
 * the page cache and the reopened instance may see it, so that answer must not promise
 * the opposite. The errors are shaped as core's PGlite driver throws them (`WalSyncFailed`
 * by name, SQLSTATE 53100 for ENOSPC) and as PGlite reports a refused write.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyDependencyError } from '../../src/dependency-errors.js';

const pglite = { engine: 'pglite' } as never;

test('a failed WAL sync (commit in doubt) is a 503 that does not say nothing was stored', () => {
  const error = Object.assign(
    new Error("PGlite's WAL could not be made durable: a sync of pg_wal/1 failed (ENOSPC)"),
    { name: 'WalSyncFailed', code: '53100' },
  );
  const classified = classifyDependencyError(pglite)(error);
  assert.equal(classified?.statusCode, 503);
  assert.equal(classified.code, 'DATABASE_UNAVAILABLE');
  assert.doesNotMatch(classified.detail, /nothing was stored/);
  assert.match(classified.detail, /may or may not have been stored/);
  assert.equal(classified.headers['Retry-After'], '5');
});

test('a write the disk refused (53100) still says nothing was stored', () => {
  const error = Object.assign(new Error('could not write to log file: No space left on device'), {
    code: '53100',
  });
  const classified = classifyDependencyError(pglite)(error);
  assert.equal(classified?.statusCode, 503);
  assert.match(
    classified.detail,
    /\(pglite\): the disk under it is full or failing; nothing was stored/,
  );
});

/**
 * PGlite's commits are durable before they are acknowledged (issue 21): PGlite never
 * fsyncs (its fdatasync is a no-op), so core's driver fdatasyncs the WAL files a call
 * wrote before the call resolves, shares one sync among calls that finish while one
 * runs, and fails a call whose sync failed (the instance is retired: 503 upstream).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fiuSkipReason } from '@platform/testing';
import { isDiskFailure, type SqlDatabase } from '../../src/index.js';
import { createPgliteDatabase } from '../../src/sql/pglite/pglite-database.js';

/** A throw-away folder, removed at the test's end after `close` (the database's, if any). */
const tempFolder = (t: { after(fn: () => Promise<void>): void }, close?: () => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-durable-'));
  t.after(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
};

/** The WAL segment PostgreSQL writes now (a read-only call). */
const currentSegment = async (db: SqlDatabase, dataDir: string) => {
  const { rows } = await db.query<{ name: string }>(
    'SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS name',
  );
  return join(dataDir, 'pg_wal', rows[0]!.name);
};

test('a commit resolves only after its WAL segment was synced; a read-only call syncs nothing', async (t) => {
  const opened: { db?: SqlDatabase } = {};
  const dataDir = tempFolder(t, async () => opened.db?.close());
  const events: string[] = [];
  const db = await createPgliteDatabase({
    dataDir,
    beforeWalSync: (files) => void events.push(`sync ${[...files].sort().join(',')}`),
  });
  opened.db = db;
  await db.query('CREATE TABLE jobs (id int PRIMARY KEY)');
  const segment = await currentSegment(db, dataDir);

  events.length = 0;
  await db.query('INSERT INTO jobs VALUES (1)').then(() => events.push('insert resolved'));
  await db
    .transaction((tx) => tx.query('INSERT INTO jobs VALUES (2)'))
    .then(() => events.push('transaction resolved'));
  assert.deepEqual(events, [
    `sync ${segment}`,
    'insert resolved',
    `sync ${segment}`,
    'transaction resolved',
  ]);

  events.length = 0;
  const { rows } = await db.query('SELECT id FROM jobs ORDER BY id');
  assert.deepEqual(rows, [{ id: 1 }, { id: 2 }]);
  await db.ping();
  assert.deepEqual(events, [], 'a read-only call writes no WAL, so it waits for no sync');
});

test('commits that finish while a sync runs share the next one', async (t) => {
  const opened: { db?: SqlDatabase } = {};
  const dataDir = tempFolder(t, async () => opened.db?.close());
  let syncs = 0;
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  const db = await createPgliteDatabase({
    dataDir,
    beforeWalSync: async () => {
      syncs += 1;
      if (syncs === 2) await firstHeld; // the first sync after the table exists
    },
  });
  opened.db = db;
  await db.query('CREATE TABLE jobs (id int PRIMARY KEY)');
  assert.equal(syncs, 1);

  const order: string[] = [];
  const commits = [1, 2, 3, 4, 5].map((id) =>
    db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO jobs VALUES ($1)', [id]);
        // The fifth runs only after the four before it committed (one session): the
        // first sync is still held, so none of them has resolved.
        if (id === 5)
          try {
            assert.deepEqual(order, []);
          } finally {
            releaseFirst();
          }
      })
      .then(() => order.push(`commit ${id}`)),
  );
  await Promise.all(commits);
  assert.deepEqual(
    order,
    [1, 2, 3, 4, 5].map((id) => `commit ${id}`),
  );
  // One sync for the first commit, one shared by 2–4, at most one more for the fifth
  // (it may have committed before that shared sync began): not one each.
  assert.ok(syncs - 1 <= 3, `5 commits took ${syncs - 1} syncs`);
});

for (const [where, label] of [
  ['main', 'in the main thread'],
  ['thread', 'on a thread of its own'],
] as const)
  test(
    `a commit whose WAL cannot be synced is refused (fiu-run: fdatasync fails with EIO; PGlite ${label})`,
    { skip: fiuSkipReason(), timeout: 120_000 },
    (t) => {
      const dataDir = tempFolder(t);
      const child = fileURLToPath(new URL('pglite-commit-child.ts', import.meta.url));
      const output = execFileSync(
        'fiu-run',
        ['-x', process.execPath, '--import', 'tsx', child, dataDir, where],
        { encoding: 'utf8', timeout: 110_000 },
      );
      type Outcome = { ok: boolean; code?: string; message?: string };
      const { create, whileFailing, afterwards, rows } = JSON.parse(
        output.trim().split('\n').at(-1)!,
      ) as { create: Outcome; whileFailing: Outcome; afterwards: Outcome; rows: unknown[] };

      assert.equal(create.ok, false, 'the commit was acknowledged although it could not be synced');
      assert.equal(create.code, '58030', create.message);
      assert.match(create.message!, /could not be made durable: a sync of .*pg_wal/);
      assert.ok(isDiskFailure(create), 'a disk failure: 503 upstream');
      // The instance was retired; the new one's sync of the WAL folder fails as well.
      assert.equal(whileFailing.ok, false);
      assert.equal(whileFailing.code, '57P03', whileFailing.message);
      assert.match(whileFailing.message!, /could not be made durable/);
      assert.deepEqual(afterwards, { ok: true }, 'the driver recovers once fdatasync works');
      // The refused CREATE TABLE was in doubt: committed to the page cache, so it is there.
      assert.deepEqual(rows, [{ id: 2 }]);
    },
  );

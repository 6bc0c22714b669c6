/**
 * A new PGlite folder starts from the copy of a fresh cluster (new-folder.ts), under a
 * marker that makes a half-unpacked folder start over instead of opening as a database.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createPgliteDatabase } from '../../src/sql/pglite/pglite-database.js';
import { copyForNewFolder } from '../../src/sql/pglite/new-folder.js';

const MARKER = '.pglite-unpacking';
let root: string;
before(async () => {
  root = mkdtempSync(join(tmpdir(), 'pglite-new-folder-'));
  // A memory database leaves the copy of a fresh cluster behind (memory-template.ts).
  const memory = await createPgliteDatabase({ dataDir: 'memory://new-folder-test' });
  await memory.close();
});
after(() => rmSync(root, { recursive: true, force: true }));

test('a new folder opens from the copy, the marker gone, and keeps what it commits', async () => {
  const dataDir = join(root, 'fresh');
  const db = await createPgliteDatabase({ dataDir });
  assert.equal(existsSync(join(dataDir, MARKER)), false, 'the marker is removed once synced');
  assert.ok(existsSync(join(dataDir, 'PG_VERSION')));
  await db.query('CREATE TABLE kept (id int)');
  await db.query('INSERT INTO kept VALUES (7)');
  await db.close();
  const again = await createPgliteDatabase({ dataDir });
  assert.deepEqual((await again.query('SELECT id FROM kept')).rows, [{ id: 7 }]);
  await again.close();
});

test('a folder left half-unpacked (the marker, stray files) is emptied and unpacked again', async () => {
  const dataDir = join(root, 'half');
  mkdirSync(join(dataDir, 'base'), { recursive: true });
  writeFileSync(join(dataDir, MARKER), '');
  // What a process killed mid-unpack can leave: files PostgreSQL cannot start from.
  writeFileSync(join(dataDir, 'PG_VERSION'), 'not a version\n');
  writeFileSync(join(dataDir, 'base', 'stray'), 'half a file');
  const db = await createPgliteDatabase({ dataDir });
  assert.deepEqual((await db.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
  assert.equal(existsSync(join(dataDir, 'base', 'stray')), false);
  assert.equal(existsSync(join(dataDir, MARKER)), false);
  await db.close();
});

test('a folder holding anything without the marker is never unpacked into', async () => {
  const dataDir = join(root, 'taken');
  mkdirSync(dataDir);
  writeFileSync(join(dataDir, 'notes.txt'), 'mine');
  assert.equal(await copyForNewFolder(dataDir), undefined);
  assert.deepEqual(readdirSync(dataDir), ['notes.txt']);
  const empty = join(root, 'empty');
  mkdirSync(empty);
  assert.ok((await copyForNewFolder(empty)) instanceof Blob, 'an empty folder takes the copy');
  assert.deepEqual(readdirSync(empty), [MARKER], 'under the marker');
});

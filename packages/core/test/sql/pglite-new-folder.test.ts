/**
 * A new PGlite folder starts from the copy of a fresh cluster (new-folder.ts), under a
 * marker that makes a half-unpacked folder start over instead of opening as a database.
 * A folder keeps PostgreSQL's buffer pool; a memory database has a small one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPgliteDatabase } from '../../src/sql/pglite/pglite-database.js';
import { copyForNewFolder } from '../../src/sql/pglite/new-folder.js';

const MARKER = '.pglite-unpacking';
let root: string;
let memoryBufferPool: unknown;
before(async () => {
  root = mkdtempSync(join(tmpdir(), 'pglite-new-folder-'));
  // A memory database leaves the copy of a fresh cluster behind (memory-template.ts).
  const memory = await createPgliteDatabase({ dataDir: 'memory://new-folder-test' });
  memoryBufferPool = (await memory.query('SHOW shared_buffers')).rows[0];
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

test("a folder keeps PostgreSQL's 128 MB buffer pool; a memory database, its pages in memory already, 16 MB", async () => {
  const db = await createPgliteDatabase({ dataDir: join(root, 'buffers') });
  assert.deepEqual((await db.query('SHOW shared_buffers')).rows[0], { shared_buffers: '128MB' });
  await db.close();
  assert.deepEqual(memoryBufferPool, { shared_buffers: '16MB' });
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

test('a copy another user could have written is not trusted: the folder runs initdb', () => {
  // In a child with its own temp folder: the copy's file name there is this process's too.
  const tmp = mkdtempSync(join(root, 'tmp-'));
  const newFolder = fileURLToPath(new URL('../../src/sql/pglite/new-folder.ts', import.meta.url));
  const child = (mode: number) =>
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `
        import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
        import { createRequire } from 'node:module';
        import { join } from 'node:path';
        const entry = createRequire(join(process.cwd(), 'x.js')).resolve('@electric-sql/pglite');
        const { version } = JSON.parse(readFileSync(join(entry, '..', '..', 'package.json'), 'utf8'));
        const file = join(process.env.TMPDIR, 'pglite-memory-template-' + version + '.tar');
        writeFileSync(file, 'not a real copy');
        chmodSync(file, ${mode});
        const { copyForNewFolder } = await import(${JSON.stringify(newFolder)});
        const copy = await copyForNewFolder(mkdtempSync(join(process.env.TMPDIR, 'db-')));
        console.log(copy ? 'copy' : 'none');
        `,
      ],
      {
        env: { ...process.env, TMPDIR: tmp },
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
      },
    )
      .toString()
      .trim();
  assert.equal(child(0o600), 'copy', "this user's own file is used");
  assert.equal(child(0o666), 'none', 'a file others can write is not');
  assert.equal(child(0o620), 'none', 'nor one its group can write');
});

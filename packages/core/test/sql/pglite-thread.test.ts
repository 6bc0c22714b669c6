// PGlite on a thread of its own (PGLITE_THREAD): what the conformance suite does not ask.
// Values and errors cross the thread unchanged, a failed open is the caller's error, an
// idle database does not hold its process open, a closed one refuses calls, and a thread
// that dies fails its calls as a database that is down, and says so once in the log.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { createSqlDatabase, isDatabaseUnavailable } from '../../src/index.js';
import { createPgliteThreadDatabase } from '../../src/sql/pglite/pglite-thread-database.js';

const tempFolder = (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'core-pglite-thread-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

test('rows come back from the thread as the in-process driver gives them', async (t) => {
  const inProcess = await createSqlDatabase({ dataDir: 'memory://' });
  const threaded = await createSqlDatabase({ dataDir: tempFolder(t), thread: true });
  const sql = `SELECT $1::timestamptz AS at, $2::bytea AS bytes, 9007199254740993::int8 AS big,
      1.5::numeric AS exact, ARRAY[1, NULL, 3]::int[] AS ints, NULL::text AS nothing,
      $3::jsonb AS doc, 'ü ☃'::text AS text`;
  const params = [
    new Date('2026-11-29T23:00:00.123Z'),
    new Uint8Array([0, 1, 254, 255]),
    JSON.stringify({ a: [1, 'two', null], b: { c: true } }),
  ];
  const expected = (await inProcess.query(sql, params)).rows;
  const got = (await threaded.query(sql, params)).rows;
  await Promise.all([inProcess.close(), threaded.close()]);
  assert.deepEqual(got, expected);
  assert.ok(got[0]!.at instanceof Date);
  assert.deepEqual(got[0]!.doc, { a: [1, 'two', null], b: { c: true } });
});

test('a database that cannot open fails the open with its cause', async (t) => {
  const file = join(tempFolder(t), 'a-file');
  writeFileSync(file, 'not a folder');
  const failed = await createSqlDatabase({ dataDir: join(file, 'pglite'), thread: true }).then(
    () => assert.fail('a database opened under a file'),
    (error: unknown) => error as NodeJS.ErrnoException,
  );
  assert.equal(failed.code, 'ENOTDIR', failed.message);
});

test('an open database left idle does not keep its process running', (t) => {
  const dataDir = tempFolder(t);
  const core = new URL('../../src/index.ts', import.meta.url).href;
  // No close(): the process ends when its own work is done, as with in-process PGlite.
  const script = `
    const { createSqlDatabase } = await import(${JSON.stringify(core)});
    const db = await createSqlDatabase({ dataDir: ${JSON.stringify(dataDir)}, thread: true });
    const { rows } = await db.query('SELECT 41 + 1 AS answer');
    console.log(JSON.stringify(rows));`;
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.deepEqual(JSON.parse(output.trim()), [{ answer: 42 }]);
});

test('a closed database refuses calls, and what it committed is on disk', async (t) => {
  const dataDir = tempFolder(t);
  const db = await createSqlDatabase({ dataDir, thread: true });
  await db.query('CREATE TABLE kept (id int)');
  await db.transaction((tx) => tx.query('INSERT INTO kept VALUES (1)'));
  await db.close();
  await assert.rejects(db.query('SELECT 1'), /PGlite is closed/);
  await assert.rejects(
    db.transaction((tx) => tx.query('SELECT 1')),
    /PGlite is closed/,
  );
  await db.close();
  const reopened = await createSqlDatabase({ dataDir });
  const { rows } = await reopened.query('SELECT id FROM kept');
  await reopened.close();
  assert.deepEqual(rows, [{ id: 1 }]);
});

test('a thread that dies fails the call that waits for it and every later one, as a database that is down', async () => {
  const logged: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'error' },
    { write: (line: string) => logged.push(JSON.parse(line)) },
  );
  const db = await createPgliteThreadDatabase({
    dataDir: 'memory://',
    threadEntry: new URL('./dying-pglite-thread.ts', import.meta.url),
    logger,
  });
  // Down, not wrong: a service answers 503 and an adapter holds its position.
  const down = (error: unknown) =>
    /the PGlite thread exited \(code 3\)/.test((error as Error).message) &&
    isDatabaseUnavailable(error);
  await assert.rejects(db.query('SELECT 1'), down);
  await assert.rejects(
    db.transaction((tx) => tx.query('SELECT 1')),
    down,
  );
  await db.close();
  assert.deepEqual(
    logged.map((line) => line.msg),
    ['the PGlite thread ended: every database call fails until the service is restarted'],
  );
});

// One suite, run against every SQL driver: PGlite (embedded) and PostgreSQL (this
// machine's server, a fresh database per run). SQL_DRIVERS=pglite narrows it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createTestDatabase,
  postgresUrlForTests,
  skipReason,
  type TestDatabase,
} from '@platform/testing';
import {
  createSqlDatabase,
  loadMigrations,
  runMigrations,
  type SqlDatabase,
  type SqlExecutor,
} from '../../src/index.js';

const postgresUrl = await postgresUrlForTests();
const only = process.env.SQL_DRIVERS?.split(',');

const drivers: Array<{
  name: string;
  skip?: string | undefined;
  open: () => Promise<{ db: SqlDatabase; cleanup: () => Promise<void>; url?: string }>;
}> = [
  {
    name: 'pglite',
    open: async () => ({
      db: await createSqlDatabase({ dataDir: 'memory://' }),
      cleanup: async () => {},
    }),
  },
  {
    // On a folder: every write then waits for the driver's WAL sync (issue 21).
    name: 'pglite-folder',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'core-sql-pglite-'));
      return {
        db: await createSqlDatabase({ dataDir: dir }),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    // On a thread of its own (PGLITE_THREAD): every call crosses to the thread and back.
    name: 'pglite-thread',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'core-sql-pglite-thread-'));
      return {
        db: await createSqlDatabase({ dataDir: dir, thread: true }),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    skip: skipReason('PostgreSQL at 127.0.0.1:5432', postgresUrl !== undefined),
    open: async () => {
      const testDb: TestDatabase = await createTestDatabase('core_sql');
      return {
        db: await createSqlDatabase({ url: testDb.url, dataDir: 'unused' }),
        cleanup: () => testDb.drop(),
        url: testDb.url,
      };
    },
  },
];

for (const driver of drivers.filter((d) => !only || only.includes(d.name))) {
  describe(`SQL database conformance: ${driver.name}`, { skip: driver.skip }, () => {
    let db: SqlDatabase;
    let cleanup: () => Promise<void>;
    let url: string | undefined;

    before(async () => {
      ({ db, cleanup, url } = await driver.open());
      await db.query('CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, n int)');
    });
    after(async () => {
      await db.close();
      await cleanup();
    });

    test('runs parameterised queries and reports affected rows', async () => {
      const inserted = await db.query('INSERT INTO items (name, n) VALUES ($1, $2), ($3, $4)', [
        'a',
        1,
        "b'; DROP TABLE items; --",
        2,
      ]);
      assert.equal(inserted.rowCount, 2);
      const { rows } = await db.query<{ name: string; n: number }>(
        'SELECT name, n FROM items WHERE n >= $1 ORDER BY n',
        [1],
      );
      assert.deepEqual(rows, [
        { name: 'a', n: 1 },
        { name: "b'; DROP TABLE items; --", n: 2 },
      ]);
    });

    test("a failed statement's error keeps its SQLSTATE and detail, and the session goes on", async () => {
      await db.query('CREATE TABLE uniques (id int PRIMARY KEY)');
      await db.query('INSERT INTO uniques VALUES (1)');
      const duplicate = await db.query('INSERT INTO uniques VALUES (1)').then(
        () => assert.fail('a duplicate key was accepted'),
        (error: unknown) => error,
      );
      assert.ok(duplicate instanceof Error);
      assert.equal((duplicate as { code?: string }).code, '23505');
      assert.match(duplicate.message, /duplicate key value violates unique constraint/);
      assert.equal((duplicate as { detail?: string }).detail, 'Key (id)=(1) already exists.');
      const inTransaction = await db
        .transaction(async (tx) => tx.query('INSERT INTO uniques VALUES (1)'))
        .catch((error: unknown) => error);
      assert.equal((inTransaction as { code?: string }).code, '23505');
      assert.deepEqual((await db.query('SELECT count(*)::int AS n FROM uniques')).rows, [{ n: 1 }]);
    });

    test('a statement prepared by name answers as unnamed, each time; PostgreSQL keeps it in the session', async () => {
      const sql = 'SELECT count(*)::int AS n FROM items WHERE n >= $1';
      const named = { prepareAs: 'core_conformance_count' };
      const kept = await db.transaction(async (tx) => {
        const answers = [];
        for (const min of [1, 2, 1]) answers.push((await tx.query(sql, [min], named)).rows);
        assert.deepEqual(answers, [(await tx.query(sql, [1])).rows, [{ n: 1 }], answers[0]]);
        const { rows } = await tx.query<{ name: string }>(
          'SELECT name FROM pg_prepared_statements WHERE name = $1',
          [named.prepareAs],
        );
        return rows.length;
      });
      if (driver.name === 'postgres') assert.equal(kept, 1);
    });

    test('returns json and jsonb values parsed, the same on every engine, also in a transaction', async () => {
      await db.query('CREATE TABLE documents (id int PRIMARY KEY, b jsonb, j json)');
      const values: unknown[] = [
        { name: 'Ada', tags: ['x', 'y'], nested: { n: 1.5, ok: true, none: null } },
        ['a', 2, { three: 3 }],
        'a string, not JSON text: {"k": 1}',
        '{"looks": "like an object"}',
        42,
        false,
        null,
        { text: 'ünïcödé 😀 \\ "quoted"' },
      ];
      for (const [id, value] of values.entries())
        await db.query('INSERT INTO documents (id, b, j) VALUES ($1, $2::jsonb, $2::json)', [
          id,
          JSON.stringify(value),
        ]);
      const read = (executor: SqlExecutor) =>
        executor.query<{ b: unknown; j: unknown }>('SELECT b, j FROM documents ORDER BY id');
      const { rows } = await read(db);
      assert.deepEqual(
        rows.map((row) => row.b),
        values,
      );
      assert.deepEqual(
        rows.map((row) => row.j),
        values,
      );
      assert.deepEqual((await db.transaction(read)).rows, rows);
      // Built by SQL functions, not only read from columns.
      const built = await db.query<{ o: unknown; agg: unknown }>(
        "SELECT jsonb_build_object('k', 1) AS o, (SELECT jsonb_agg(b ORDER BY id) FROM documents) AS agg",
      );
      assert.deepEqual(built.rows[0], { o: { k: 1 }, agg: values });
      await db.query('DROP TABLE documents');
    });

    test('commits a transaction that resolves and rolls back one that throws', async () => {
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO items (name) VALUES ($1)', ['committed']);
      });
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO items (name) VALUES ($1)', ['rolled-back']);
          throw new Error('boom');
        }),
        /boom/,
      );
      const { rows } = await db.query<{ name: string }>(
        "SELECT name FROM items WHERE name IN ('committed', 'rolled-back')",
      );
      assert.deepEqual(
        rows.map((r) => r.name),
        ['committed'],
      );
    });

    test('advisory locks serialise holders of the same key', async () => {
      const events: string[] = [];
      const holder = (id: string) =>
        db.withAdvisoryLock('same-key', async (tx) => {
          events.push(`enter ${id}`);
          await tx.query('SELECT pg_sleep(0.05)');
          events.push(`exit ${id}`);
        });
      await Promise.all([holder('1'), holder('2'), holder('3')]);
      for (let i = 0; i < events.length; i += 2) {
        assert.match(events[i]!, /^enter (\d)$/);
        assert.equal(
          events[i + 1],
          events[i]!.replace('enter', 'exit'),
          `overlap in ${events.join(', ')}`,
        );
      }
    });

    test('delivers NOTIFY payloads to listeners until they unlisten', async () => {
      const received: string[] = [];
      const unlisten = await db.listen('core_test_channel', (payload) => received.push(payload));
      await db.notify('core_test_channel', 'hello');
      await waitFor(() => received.length === 1);
      await unlisten();
      // A listener that stays is the witness: once it has heard the payload, the one
      // that left would have heard it too (listeners of a channel hear it together).
      const witnessed: string[] = [];
      const stopWitness = await db.listen('core_test_channel', (p) => witnessed.push(p));
      await db.notify('core_test_channel', 'ignored');
      await waitFor(() => witnessed.includes('ignored'));
      await stopWitness();
      assert.deepEqual(received, ['hello']);
      await assert.rejects(
        db.listen('bad; DROP', () => {}),
        /invalid notification channel/,
      );
    });

    test('concurrent first listeners share one session, each hears its channel once, and close() ends', async () => {
      const { db: fresh, cleanup: cleanupFresh } = await driver.open();
      try {
        const received: string[] = [];
        await Promise.all(
          ['core_first_a', 'core_first_b', 'core_first_a'].map((channel, i) =>
            fresh.listen(channel, (payload) => received.push(`${i}:${payload}`)),
          ),
        );
        await fresh.notify('core_first_a', 'x');
        await fresh.notify('core_first_b', 'y');
        // One session hears the channels in order: once a later payload has come, a
        // second delivery of the first ones would have come before it.
        await fresh.notify('core_first_b', 'end');
        await waitFor(() => received.includes('1:end'));
        assert.deepEqual(received.sort(), ['0:x', '1:end', '1:y', '2:x']);
        await withinMs(fresh.close(), 5000, 'close() with listeners');
      } finally {
        await cleanupFresh();
      }
    });

    test('syncNotifications: every notification committed before it, by any session, has been heard', async () => {
      const heard = new Set<string>();
      const unlisten = await db.listen('core_sync', (payload) => heard.add(payload));
      // Another session, as another process would write (PGlite has only its own).
      const other =
        driver.name === 'postgres' ? await createSqlDatabase({ url: url!, dataDir: 'unused' }) : db;
      try {
        const epoch = await db.syncNotifications();
        for (let i = 0; i < 200; i += 1) {
          await other.query('SELECT pg_notify($1, $2)', ['core_sync', String(i)]);
          assert.equal(await db.syncNotifications(), epoch);
          assert.ok(heard.has(String(i)), `notification ${i} heard when the sync resolved`);
        }
      } finally {
        if (other !== db) await other.close();
        await unlisten();
      }
    });

    if (driver.name === 'postgres') {
      test('a lost LISTEN session is replaced without crashing, and notifications resume', async () => {
        const received: string[] = [];
        const unlisten = await db.listen('core_lost_session', (payload) => received.push(payload));
        const epochBefore = await db.syncNotifications();
        const { rowCount } = await db.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query IN ('LISTEN core_lost_session', 'SELECT 1')",
        );
        assert.equal(rowCount, 1);
        // Notifications sent before the new session listens are lost: send until one arrives.
        const deadline = Date.now() + 5000;
        while (received.length === 0 && Date.now() < deadline) {
          await db.notify('core_lost_session', 'again');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(received[0], 'again');
        let epochAfter: number | undefined;
        while (epochAfter === undefined && Date.now() < deadline) {
          epochAfter = await db.syncNotifications().catch(() => undefined);
        }
        // Some notifications may have been missed while the session was down: the epoch says so.
        assert.notEqual(epochAfter, undefined, 'a sync succeeds on the new session');
        assert.notEqual(epochAfter, epochBefore);
        await unlisten();
      });
    }

    test('applies migrations once, in order, per service', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
      writeFileSync(join(dir, '002_add_column.sql'), 'ALTER TABLE widgets ADD COLUMN colour text;');
      writeFileSync(
        join(dir, '001_create.sql'),
        "CREATE TABLE widgets (id int PRIMARY KEY, note text DEFAULT 'a;b');\nINSERT INTO widgets (id) VALUES (1);",
      );
      writeFileSync(join(dir, 'README.md'), 'not a migration');
      const migrations = loadMigrations(dir);
      assert.deepEqual(
        migrations.map((m) => m.version),
        [1, 2],
      );
      assert.deepEqual(await runMigrations(db, 'widgets-service', migrations), [1, 2]);
      assert.deepEqual(await runMigrations(db, 'widgets-service', migrations), []);
      const { rows } = await db.query<{ note: string; colour: string | null }>(
        'SELECT note, colour FROM widgets',
      );
      assert.deepEqual(rows, [{ note: 'a;b', colour: null }]);
    });

    test('services migrating a fresh database at once all succeed', async () => {
      const { db: fresh, cleanup: cleanupFresh } = await driver.open();
      try {
        // Fresh means empty, though PGlite's in-memory ones start from a copy of a fresh
        // cluster (memory-template.ts): nothing of the suite's database is in it.
        const { rows } = await fresh.query("SELECT to_regclass('items') AS t");
        assert.equal(rows[0]?.t, null, 'a fresh database holds a table of another one');
        // On PostgreSQL each call runs in a session of its own from the pool.
        const applied = await Promise.all(
          [0, 1, 2, 3].map((i) =>
            runMigrations(fresh, `fresh-service-${i}`, [
              { version: 1, name: 'create', sql: `CREATE TABLE fresh_${i} (id int)` },
            ]),
          ),
        );
        assert.deepEqual(applied, [[1], [1], [1], [1]]);
      } finally {
        await fresh.close();
        await cleanupFresh();
      }
    });

    test('a failing migration leaves nothing behind and is retried next start', async () => {
      const broken = [
        {
          version: 1,
          name: 'broken',
          sql: 'CREATE TABLE half (id int); SELECT no_such_function();',
        },
      ];
      await assert.rejects(runMigrations(db, 'broken-service', broken));
      const { rows } = await db.query("SELECT to_regclass('half') AS t");
      assert.equal(rows[0]?.t, null);
      const fixed = [{ version: 1, name: 'fixed', sql: 'CREATE TABLE half (id int);' }];
      assert.deepEqual(await runMigrations(db, 'broken-service', fixed), [1]);
    });
  });
}

function withinMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

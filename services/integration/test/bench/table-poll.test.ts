/**
 * The bench's table poll (`bench/landing-observer.ts`): it reads the relational target's
 * audit log on from the last row it saw, so what it reports decides the bench's table
 * figures. An id committed after a higher one (a hole) must still be read, a row that
 * changed nothing is no landing, and a record whose hole was given up is found in the
 * table by id. Against PGlite (the SQL log bench polls it) and PostgreSQL (the observer
 * thread's), with the target's own migrations.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSqlDatabase, loadMigrations, runMigrations, type SqlDatabase } from '@platform/core';
import { createTestDatabase, postgresUrlForTests, type TestDatabase } from '@platform/testing';
import { createTablePoll, type Landing } from '../../bench/landing-observer.js';
import { RELATIONAL_MIGRATIONS_DIR } from '../../src/adapters/relational/build-relational-adapter.js';

const missing = (await postgresUrlForTests()) ? undefined : 'PostgreSQL on 127.0.0.1:5432';

/** Writes an audit row as the relational target does, at a chosen `audit_id`. */
async function audit(db: SqlDatabase, auditId: number, recordId: string, applied = true) {
  await db.query(
    `INSERT INTO audit_log (audit_id, attachment_id, contract_id, record_id, trace_id, record_type, lifecycle,
       natural_key, schema_version, occurred_at, applied, payload)
     VALUES ($1, 'a-1', 'interns', $2::uuid, $3, 'intern.created', 'create', $2::text, 1, now(), $4, '{}')`,
    [auditId, recordId, randomUUID(), applied],
  );
}

/** Writes a record's row in the shaped interns table (without its audit row). */
async function internRow(db: SqlDatabase, recordId: string) {
  await db.query(
    `INSERT INTO interns (record_id, intern_id, first_name, last_name, email, college, department,
       start_date, status, created_at)
     VALUES ($1::uuid, $1::text, 'A', 'B', 'a@example.org', 'C', 'D', '2025-01-01', 'active', now())`,
    [recordId],
  );
}

function recording() {
  const landings: Landing[] = [];
  return { landings, seen: (more: Landing[]) => landings.push(...more) };
}

const ids = (landings: Landing[]) => landings.map(([id, target]) => `${target}:${id}`).sort();

for (const engine of ['PGlite', 'PostgreSQL'] as const) {
  describe(
    `bench table poll (${engine})`,
    { skip: engine === 'PostgreSQL' ? missing : undefined },
    () => {
      let testDb: TestDatabase | undefined;
      let db: SqlDatabase;
      before(async () => {
        if (engine === 'PostgreSQL') {
          testDb = await createTestDatabase('bench_table_poll');
          db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused' });
        } else db = await createSqlDatabase({ dataDir: 'memory://' });
        await runMigrations(
          db,
          'integration-relational-adapter',
          loadMigrations(RELATIONAL_MIGRATIONS_DIR),
        );
      });
      after(async () => {
        await db.close();
        await testDb?.drop();
      });

      it('reports applied rows once, reads an id committed after a higher one, and skips rows that changed nothing', async () => {
        await db.query('TRUNCATE audit_log, interns');
        const { landings, seen } = recording();
        const poll = createTablePoll(db, seen);
        const [r1, r2, r3, stale] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
        poll.watch([r1, r2, r3, stale]);
        await audit(db, 1, r1);
        await audit(db, 3, r3); // id 2 taken by a transaction not committed yet
        await audit(db, 4, stale, false);
        await poll.poll();
        assert.deepEqual(ids(landings), [`table:${r1}`, `table:${r3}`].sort());
        await audit(db, 2, r2);
        await poll.poll();
        assert.deepEqual(ids(landings), [`table:${r1}`, `table:${r2}`, `table:${r3}`].sort());
        await poll.poll();
        assert.equal(landings.length, 3, 'a row read again is not a second landing');
        const at = new Map(landings.map(([id, , time]) => [id, time]));
        assert.ok(at.get(r2)! > at.get(r3)!, 'the late row lands at the poll that read it');
      });

      it('reports a record applied before it was watched, and finds one whose hole was given up in the table', async () => {
        await db.query('TRUNCATE audit_log, interns');
        const { landings, seen } = recording();
        const poll = createTablePoll(db, seen, { holeMs: 0, stragglerMs: 1500 });
        const [early, late, next] = [randomUUID(), randomUUID(), randomUUID()];
        poll.watch([randomUUID()]); // the poll reads once something is watched
        await audit(db, 1, early);
        await audit(db, 3, next);
        await poll.poll(); // the hole at 2 is given up at once (holeMs 0)
        assert.deepEqual(ids(landings), [`table:${early}`, `table:${next}`].sort());
        await internRow(db, late);
        await audit(db, 2, late);
        poll.watch([early, late]);
        await poll.poll();
        assert.equal(
          landings.length,
          2,
          'a given-up id is not read again, and not yet a straggler',
        );
        await sleep(1600);
        await poll.poll();
        assert.deepEqual(
          ids(landings),
          [`table:${early}`, `table:${next}`, `table:${late}`].sort(),
          'found in the table by id once watched longer than stragglerMs',
        );
      });
    },
  );
}

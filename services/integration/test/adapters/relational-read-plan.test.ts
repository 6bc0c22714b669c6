/**
 * The relational batch's read (`batch-write.ts`, READ_SQL) looks up the batch's record
 * ids in the audit log by index, one probe per id, on PostgreSQL: with `record_id =
 * ANY(…)` the planner read every audit row of the attachment (a bitmap scan filtered by
 * the ids, or a sequential scan once analysed), so each batch cost grew with the log,
 * which is append-only and never shrinks (issue 11, 28 Nov 2026).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSqlDatabase, loadMigrations, runMigrations, type SqlDatabase } from '@platform/core';
import { createTestDatabase, postgresUrlForTests, type TestDatabase } from '@platform/testing';
import { READ_SQL } from '../../src/adapters/relational/batch-write.js';
import { RELATIONAL_MIGRATIONS_DIR } from '../../src/adapters/relational/build-relational-adapter.js';

const missing = (await postgresUrlForTests()) ? undefined : 'PostgreSQL on 127.0.0.1:5432';

describe('relational batch read: the audit look-up probes the index', { skip: missing }, () => {
  let testDb: TestDatabase;
  let db: SqlDatabase;
  const attachmentId = randomUUID();
  before(async () => {
    testDb = await createTestDatabase('relreadplan');
    db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused' });
    await runMigrations(
      db,
      'integration-relational-adapter',
      loadMigrations(RELATIONAL_MIGRATIONS_DIR),
    );
    // An attachment with a log of 20,000 audit rows behind it.
    await db.query(
      `INSERT INTO audit_log (attachment_id, contract_id, record_id, trace_id, record_type, lifecycle,
         natural_key, schema_version, occurred_at, applied, payload)
       SELECT $1, 'interns', gen_random_uuid(), gen_random_uuid(), 'intern.created', 'create',
         'K-' || i, 1, now(), true, '{"internId":"x"}'::jsonb
       FROM generate_series(1, 20000) AS i`,
      [attachmentId],
    );
  });
  after(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const plan = async () => {
    const ids = Array.from({ length: 300 }, () => randomUUID());
    const { rows } = await db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${READ_SQL}`,
      [attachmentId, [], [], [], ids, [], []],
    );
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };

  for (const analysed of [false, true])
    it(`reads no audit row but the batch's ids (${analysed ? 'after' : 'before'} ANALYZE)`, async () => {
      if (analysed) await db.query('ANALYZE audit_log');
      const text = await plan();
      assert.match(
        text,
        /Index (Only )?Scan using audit_log_attachment_id_record_id_key on audit_log/,
        text,
      );
      assert.doesNotMatch(text, /Rows Removed by Filter|Seq Scan on audit_log/, text);
    });
});

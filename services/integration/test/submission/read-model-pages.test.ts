/**
 * The read model leaves room on its pages (migration 005, issue 11): a create reserved
 * pending and then marked sent (made active) is a HOT update, which adds no index entry,
 * also when a whole micro-batch is reserved before any of it is marked sent. So is the
 * outbox row's mark-sent (migration 007: no index holds what it sets, and its pages have
 * room too). Counted by PostgreSQL itself in the transaction's own statistics
 * (`pg_stat_xact_user_tables`), on PGlite and, when it answers, on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import {
  createTestDatabase,
  postgresUrlForTests,
  skipReason,
  type TestDatabase,
} from '@platform/testing';
import { buildEnvelope } from '../../src/contracts/envelope.js';
import type { Payload } from '../../src/contracts/payload.js';
import { migrateIntegration } from '../../src/migrations.js';
import { markSent } from '../../src/submission/outbox.js';
import { reserveCreates } from '../../src/submission/read-model.js';
import { internPayload, internsLike } from '../support/contracts.js';

const BATCH = 200;
const postgres = await postgresUrlForTests();

type Counts = Record<'submitted_records' | 'intake_outbox', { updated: number; hot: number }>;

async function hotShare(db: SqlDatabase): Promise<Counts> {
  await migrateIntegration(db);
  const contract = internsLike();
  const creates = Array.from({ length: BATCH }, () => ({
    envelope: buildEnvelope(contract, 'intern.created', internPayload() as Payload, {
      recordId: randomUUID(),
      traceId: randomUUID(),
      occurredAt: new Date(),
    }),
    topic: `${contract.contractId}.created`,
  }));
  // One transaction, so its own statistics count exactly these statements.
  return db.transaction(async (tx) => {
    await reserveCreates(tx, creates, 'pages-test');
    await markSent(
      tx,
      creates.map(({ envelope }, offset) => ({
        recordId: envelope.recordId,
        partition: 0,
        offset,
      })),
    );
    const { rows } = await tx.query<{
      relname: keyof Counts;
      n_tup_upd: string | number;
      n_tup_hot_upd: string | number;
    }>(
      `SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables
       WHERE relname IN ('submitted_records', 'intake_outbox')`,
    );
    const counts = {} as Counts;
    for (const row of rows)
      counts[row.relname] = { updated: Number(row.n_tup_upd), hot: Number(row.n_tup_hot_upd) };
    return counts;
  });
}

/**
 * Every read-model update HOT; most of the outbox's. Its rows are larger and, in this one
 * transaction, no old version can be pruned to make room before the batch ends: 183 of
 * 200 on PGlite, 167 on PostgreSQL (the intake's own micro-batches, each committed alone:
 * 99.4 % in the bench). Before migration 007: none could be.
 */
function assertHot(counts: Counts): void {
  assert.deepEqual(counts.submitted_records, { updated: BATCH, hot: BATCH });
  assert.equal(counts.intake_outbox.updated, BATCH);
  assert.ok(
    counts.intake_outbox.hot > BATCH / 2,
    `${counts.intake_outbox.hot} of ${BATCH} outbox updates HOT`,
  );
}

describe('read model and outbox pages: a create made active and marked sent is two HOT updates', () => {
  it('on PGlite', async () => {
    const db = await createSqlDatabase({ dataDir: 'memory://' });
    try {
      assertHot(await hotShare(db));
    } finally {
      await db.close();
    }
  });

  let testDb: TestDatabase | undefined;
  after(async () => testDb?.drop());
  it(
    'on PostgreSQL',
    { skip: skipReason('PostgreSQL on 127.0.0.1:5432', Boolean(postgres)) },
    async () => {
      testDb = await createTestDatabase('integration_read_model_pages');
      const db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused', poolSize: 1 });
      try {
        assertHot(await hotShare(db));
      } finally {
        await db.close();
      }
    },
  );
});

/**
 * The read model leaves room on its pages (migration 005, issue 11): a create reserved
 * pending and then marked sent (made active) is a HOT update, which adds no index entry,
 * also when a whole micro-batch is reserved before any of it is marked sent. Counted by
 * PostgreSQL itself in the transaction's own statistics (`pg_stat_xact_user_tables`), on
 * PGlite and, when it answers, on PostgreSQL.
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

async function hotShare(db: SqlDatabase): Promise<{ updated: number; hot: number }> {
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
    const { rows } = await tx.query<{ n_tup_upd: string | number; n_tup_hot_upd: string | number }>(
      "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = 'submitted_records'",
    );
    return { updated: Number(rows[0]!.n_tup_upd), hot: Number(rows[0]!.n_tup_hot_upd) };
  });
}

describe('read model pages: a create made active is a HOT update', () => {
  it('on PGlite', async () => {
    const db = await createSqlDatabase({ dataDir: 'memory://' });
    try {
      assert.deepEqual(await hotShare(db), { updated: BATCH, hot: BATCH });
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
        assert.deepEqual(await hotShare(db), { updated: BATCH, hot: BATCH });
      } finally {
        await db.close();
      }
    },
  );
});

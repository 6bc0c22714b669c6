/**
 * The relational target writes the partition batches of one consumer pass (handed to it
 * in one turn of the event loop) in one transaction (`pass-writer.ts`), each batch still
 * answered on its own: its outcomes, its stored position, or its own failure.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSqlDatabase, loadMigrations, runMigrations, type SqlDatabase } from '@platform/core';
import { createTestDatabase, postgresUrlForTests, type TestDatabase } from '@platform/testing';
import { RELATIONAL_MIGRATIONS_DIR } from '../../src/adapters/relational/build-relational-adapter.js';
import { createRelationalTarget } from '../../src/adapters/relational/relational-target.js';
import type { TargetEvent } from '../../src/adapters/runtime/adapter-target.js';
import type { AttachmentView, LifecycleClass } from '../../src/adapters/runtime/attachment.js';
import type { Harness } from '../support/harness.js';
import { genericRelationalAttachment, openRelationalHarness } from '../support/relational.js';

const GROUP = 'adapter.relational';
const RECORD_TYPE: Record<LifecycleClass, string> = {
  create: 'intern.created',
  update: 'intern.updated',
  tombstone: 'intern.deleted',
};
const TOPIC: Record<LifecycleClass, string> = {
  create: 'interns.created',
  update: 'interns.updated',
  tombstone: 'interns.deleted',
};

function eventOf(
  attachment: AttachmentView,
  lifecycle: LifecycleClass,
  key: string,
  revision: number,
  position: { partition: number; offset: number },
  occurredAt = new Date(1_700_000_000_000 + revision).toISOString(),
): TargetEvent {
  return {
    envelope: {
      recordId: randomUUID(),
      contractId: attachment.contract.contractId,
      recordType: RECORD_TYPE[lifecycle],
      schemaVersion: 1,
      naturalKey: key,
      occurredAt,
      traceId: randomUUID(),
      payload: { internId: key, mentor: `m-${revision}` },
      legacyFlat: false,
      revision,
    },
    lifecycle,
    attachment,
    position: {
      consumerGroup: GROUP,
      topic: TOPIC[lifecycle],
      ...position,
      publishedAt: 1_700_000_000_000 + revision,
    },
  };
}

/** The database with its transactions counted. */
function countingTransactions(db: SqlDatabase): { db: SqlDatabase; count: () => number } {
  let transactions = 0;
  const counted = new Proxy(db, {
    get(real, property) {
      if (property === 'transaction')
        return (fn: Parameters<SqlDatabase['transaction']>[0]) => {
          transactions += 1;
          return real.transaction(fn);
        };
      const value: unknown = Reflect.get(real, property, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
  return { db: counted, count: () => transactions };
}

/** The generic table's row of `key`: its mentor, and whether it is soft-deleted. */
const rowIn = async (db: SqlDatabase, attachment: AttachmentView, key: string) =>
  (
    await db.query<{ mentor: string; deleted: boolean }>(
      `SELECT payload->>'mentor' AS mentor, deleted_at IS NOT NULL AS deleted FROM records
       WHERE contract_id = $1 AND natural_key = $2`,
      [attachment.contract.contractId, key],
    )
  ).rows[0];

describe('relational target: one transaction per consumer pass', () => {
  let h: Harness;
  before(async () => {
    h = await openRelationalHarness();
  });
  after(async () => h?.close());

  const rowOf = (attachment: AttachmentView, key: string) => rowIn(h.db, attachment, key);

  const positions = async (attachment: AttachmentView) =>
    (
      await h.db.query<{ topic: string; partition: number; next_offset: string }>(
        `SELECT topic, partition, next_offset::text AS next_offset FROM relational_offsets
         WHERE attachment_id = $1 ORDER BY topic, partition`,
        [attachment.attachmentId],
      )
    ).rows.map((row) => `${row.topic}/${row.partition}@${row.next_offset}`);

  it('writes the batches of several partitions and topics handed in one turn in one transaction', async () => {
    const { db, count } = countingTransactions(h.db);
    const target = createRelationalTarget(db);
    const attachment = genericRelationalAttachment('records');
    const mapping = await target.resolveMapping(attachment);
    const p0 = [
      eventOf(attachment, 'create', 'K-a', 1, { partition: 0, offset: 0 }),
      eventOf(attachment, 'create', 'K-b', 1, { partition: 0, offset: 1 }),
    ];
    const p1 = [eventOf(attachment, 'create', 'K-c', 1, { partition: 1, offset: 0 })];
    const updates = [eventOf(attachment, 'update', 'K-a', 2, { partition: 0, offset: 0 })];
    const before = count();
    const outcomes = await Promise.all([
      target.writeBatch!(mapping, p0),
      target.writeBatch!(mapping, p1),
      target.writeBatch!(mapping, updates),
    ]);
    assert.equal(count() - before, 1, 'one transaction for the three batches');
    // K-a's create and update met in one transaction: the update (revision 2) is the row;
    // both count as written, as applied one after the other.
    assert.deepEqual(outcomes, [['written', 'written'], ['written'], ['written']]);
    assert.equal((await rowOf(attachment, 'K-a'))?.mentor, 'm-2');
    assert.equal((await rowOf(attachment, 'K-b'))?.mentor, 'm-1');
    assert.equal((await rowOf(attachment, 'K-c'))?.mentor, 'm-1');
    assert.deepEqual(await positions(attachment), [
      'interns.created/0@2',
      'interns.created/1@1',
      'interns.updated/0@1',
    ]);
  });

  it('orders a key by revision across the topics of one pass: updated, deleted and created again', async () => {
    const target = createRelationalTarget(h.db);
    const attachment = genericRelationalAttachment('records');
    const mapping = await target.resolveMapping(attachment);
    await target.writeBatch!(mapping, [
      eventOf(attachment, 'create', 'K-r', 1, { partition: 2, offset: 0 }),
    ]);
    // One pass hands the three topics' batches at once, the created topic's last.
    const [updated, deleted, created] = await Promise.all([
      target.writeBatch!(mapping, [
        eventOf(attachment, 'update', 'K-r', 2, { partition: 2, offset: 0 }),
      ]),
      target.writeBatch!(mapping, [
        eventOf(attachment, 'tombstone', 'K-r', 3, { partition: 2, offset: 0 }),
      ]),
      target.writeBatch!(mapping, [
        eventOf(attachment, 'create', 'K-r', 4, { partition: 2, offset: 1 }),
      ]),
    ]);
    assert.deepEqual([updated, deleted, created], [['written'], ['written'], ['written']]);
    assert.deepEqual(await rowOf(attachment, 'K-r'), { mentor: 'm-4', deleted: false });
    // A late update of revision 3 stays stale: the key's revision is 4.
    assert.deepEqual(
      await target.writeBatch!(mapping, [
        eventOf(attachment, 'update', 'K-r', 3, { partition: 2, offset: 1 }),
      ]),
      ['stale'],
    );
  });

  it('a batch that fails on its own fails alone; the batches beside it commit', async () => {
    const target = createRelationalTarget(h.db);
    const attachment = genericRelationalAttachment('records');
    const mapping = await target.resolveMapping(attachment);
    const good = [eventOf(attachment, 'create', 'K-good', 1, { partition: 3, offset: 0 })];
    // An event time the table's timestamptz column refuses: the whole statement fails.
    const bad = [
      eventOf(attachment, 'create', 'K-bad', 1, { partition: 4, offset: 0 }, 'not a time'),
    ];
    const [ok, failed] = await Promise.allSettled([
      target.writeBatch!(mapping, good),
      target.writeBatch!(mapping, bad),
    ]);
    assert.deepEqual(ok, { status: 'fulfilled', value: ['written'] });
    assert.equal(failed.status, 'rejected');
    assert.equal((await rowOf(attachment, 'K-good'))?.mentor, 'm-1');
    assert.equal(await rowOf(attachment, 'K-bad'), undefined);
    assert.deepEqual(await positions(attachment), ['interns.created/3@1']);
  });
});

const missingPostgres = (await postgresUrlForTests()) ? undefined : 'PostgreSQL on 127.0.0.1:5432';

describe(
  'relational target: two transactions at once on PostgreSQL',
  { skip: missingPostgres },
  () => {
    let testDb: TestDatabase;
    let db: SqlDatabase;
    before(async () => {
      testDb = await createTestDatabase('relpassconcurrent');
      db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused', poolSize: 4 });
      await runMigrations(
        db,
        'integration-relational-adapter',
        loadMigrations(RELATIONAL_MIGRATIONS_DIR),
      );
    });
    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    it('two processes deciding on one key at once end at its newest revision, whichever commits first', async () => {
      // Two targets: two pass writers, so two transactions at once on the pool; the key's
      // revision row, locked by each read, puts them in turn.
      const attachment = genericRelationalAttachment('records');
      const [one, two] = [createRelationalTarget(db), createRelationalTarget(db)];
      const mapping = await one.resolveMapping(attachment);
      await one.writeBatch!(mapping, [
        eventOf(attachment, 'create', 'K-both', 1, { partition: 5, offset: 0 }),
      ]);
      for (let round = 0; round < 5; round += 1) {
        const newer = 3 + round * 2;
        const [a, b] = await Promise.all([
          one.writeBatch!(mapping, [
            eventOf(attachment, 'update', 'K-both', newer, { partition: 5, offset: round + 1 }),
          ]),
          two.writeBatch!(mapping, [
            eventOf(attachment, 'update', 'K-both', newer - 1, { partition: 6, offset: round }),
          ]),
        ]);
        assert.deepEqual(a, ['written'], `round ${round}: the newer update is applied`);
        assert.ok(b[0] === 'written' || b[0] === 'stale', `round ${round}: ${b[0]}`);
        assert.equal((await rowIn(db, attachment, 'K-both'))?.mentor, `m-${newer}`);
        const { rows } = await db.query<{ revision: string }>(
          'SELECT revision::text AS revision FROM relational_key_revisions WHERE attachment_id = $1 AND natural_key = $2',
          [attachment.attachmentId, 'K-both'],
        );
        assert.deepEqual(rows, [{ revision: String(newer) }]);
      }
    });
  },
);

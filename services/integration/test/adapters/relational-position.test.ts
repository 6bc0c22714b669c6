/**
 * The relational target's stored position does not decide what is a duplicate; its audit
 * does. Found by the chaos run (seed 22): after a NATS power loss a new update took the
 * offset of a lost record the consumer had already read past, the next batch stored a
 * position above it, and the re-read after the loss skipped it as covered — no audit row,
 * no write.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createRelationalTarget } from '../../src/adapters/relational/relational-target.js';
import type { TargetEvent } from '../../src/adapters/runtime/adapter-target.js';
import type { Harness } from '../support/harness.js';
import { genericRelationalAttachment, openRelationalHarness } from '../support/relational.js';

describe('relational target: offsets in the target after a broker lost its tail', () => {
  let h: Harness;
  before(async () => {
    h = await openRelationalHarness();
  });
  after(async () => h?.close());

  it('applies a record at an offset below the stored position that it never saw', async () => {
    const target = createRelationalTarget(h.db);
    const attachment = genericRelationalAttachment('records');
    const { contract } = attachment;
    const mapping = await target.resolveMapping(attachment);
    const slot = { consumerGroup: 'adapter.relational', topic: 'interns.updated', partition: 0 };
    const update = (key: string, offset: number, publishedAt: number): TargetEvent => ({
      envelope: {
        recordId: randomUUID(),
        contractId: contract.contractId,
        recordType: 'intern.updated',
        schemaVersion: 1,
        naturalKey: key,
        occurredAt: new Date(publishedAt).toISOString(),
        traceId: randomUUID(),
        payload: { internId: key, mentor: `m-${offset}` },
        legacyFlat: false,
        revision: 1,
      },
      lifecycle: 'update',
      attachment,
      position: { ...slot, offset, publishedAt },
    });
    const audited = async (events: TargetEvent[]) =>
      (
        await h.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM audit_log WHERE attachment_id = $1 AND record_id = ANY($2::uuid[])',
          [attachment.attachmentId, events.map((e) => e.envelope.recordId)],
        )
      ).rows[0]!.n;

    // Before the power loss: the record at offset 0 is applied, the position is 1.
    const lost = update('K-lost', 0, 1000);
    assert.deepEqual(await target.writeBatch!(mapping, [lost]), ['written']);
    // The broker lost it; a new update took offset 0, but the consumer had read past it
    // and the next batch, offsets 1 and 2, stored the position 3 (ending with c's publish).
    const fresh = update('K-new', 0, 2000);
    const b = update('K-b', 1, 2001);
    const c = update('K-c', 2, 2002);
    assert.deepEqual(await target.writeBatch!(mapping, [b, c]), ['written', 'written']);
    // The loss found, the partition is read again from offset 0: c, at the stored offset,
    // is the very publish the position ends with, but the record at 0 was never applied.
    assert.deepEqual(await target.writeBatch!(mapping, [fresh, b, c]), [
      'written',
      'duplicate',
      'duplicate',
    ]);
    assert.equal(await audited([fresh]), 1);
    const row = await h.db.query<{ record_id: string }>(
      'SELECT record_id::text AS record_id FROM records WHERE contract_id = $1 AND natural_key = $2',
      [contract.contractId, 'K-new'],
    );
    assert.deepEqual(row.rows, [{ record_id: fresh.envelope.recordId }]);
    // Delivered once more, all three are duplicates, each audited once.
    assert.deepEqual(await target.writeBatch!(mapping, [fresh, b, c]), [
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    assert.equal(await audited([lost, fresh, b, c]), 4);
  });
});

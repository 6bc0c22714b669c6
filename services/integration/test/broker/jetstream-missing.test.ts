/**
 * JetStream only: `missing`, the outbox reconciler's question, answered by the stream itself.
 * A partition not checked since the connection opened is read whole (from 64 records in
 * doubt in one headers-only scan of their range, fewer one by one); a checked one reads
 * only the offsets given twice. Lost: a record deleted from the stream, one past its end,
 * and one whose offset holds another record (the broker lost its tail and gave the offset
 * again) — the last only a read can see.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import type { PublishedRecord } from '../../src/broker/broker.js';
import {
  BROKER_DRIVERS,
  openJetStreamBeside,
  type JetStreamBeside,
} from '../helpers/broker-drivers.js';

const driver = BROKER_DRIVERS.find((d) => d.name === 'jetstream')!;
const missing = await driver.missing();

describe(
  'jetstream broker: missing',
  { skip: skipReason(`${missing} (jetstream broker)`, !missing) },
  () => {
    let beside: JetStreamBeside;
    before(async () => {
      beside = await openJetStreamBeside();
    });
    after(async () => beside?.close());

    /** `count` records published to a fresh one-partition topic, each its own de-dup id. */
    async function published(count: number) {
      const { topic, stream } = await beside.topic('missing');
      const records: PublishedRecord[] = [];
      for (let i = 0; i < count; i += 1) {
        const dedupeId = `${topic}-${i}`;
        const { offset } = await beside.open.broker.publish(
          topic,
          `k${i}`,
          `v${i}`,
          {},
          { dedupeId },
        );
        records.push({ offset, dedupeId });
      }
      return { topic, stream, records };
    }

    for (const count of [150, 20]) {
      it(`finds deleted, past-the-end and overwritten records among ${count} unchecked ones`, async () => {
        const { topic, stream, records } = await published(count);
        const jsm = await beside.nc.jetstreamManager();
        const deleted = [records[0]!, records[7]!, records.at(-1)!];
        for (const record of deleted) await jsm.streams.deleteMessage(stream, record.offset + 1);
        // Another record at a held offset, and one past the stream's end.
        const overwritten = { offset: records[11]!.offset, dedupeId: `${topic}-elsewhere` };
        const beyond = { offset: records.at(-1)!.offset + 5, dedupeId: `${topic}-beyond` };
        const lost = await beside.open.broker.missing(topic, 0, [...records, overwritten, beyond]);
        assert.deepEqual(
          [...lost].sort(),
          [...deleted.map((r) => r.dedupeId), overwritten.dedupeId, beyond.dedupeId].sort(),
        );
        // Checked now: only what is in doubt is read again, and nothing held is reported.
        const again = await beside.open.broker.missing(topic, 0, records.slice(1, 7));
        assert.deepEqual([...again], []);
      });
    }
  },
);

/**
 * The intake outbox on every broker driver (issue 21): records the broker lost after
 * acknowledging them (a message deleted, a partition purged — what a JetStream power
 * loss does to its unsynced tail) are published again by the reconciler, reach a fresh
 * consumer exactly once and in per-key order, and are not published a third time; a
 * create whose request died after the outbox write is published by the relay.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import type { Broker, BrokerRecord } from '../../src/broker/broker.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { buildEnvelope } from '../../src/contracts/envelope.js';
import type { Payload } from '../../src/contracts/payload.js';
import { ContractCache } from '../../src/submission/contract-cache.js';
import { OutboxRelay } from '../../src/submission/outbox-relay.js';
import { reserveCreates } from '../../src/submission/read-model.js';
import { selectedDrivers, silentLogger, waitFor } from '../helpers/broker-drivers.js';
import { loseRecords } from '../helpers/lose-records.js';
import { internPayload, internsLike } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

for (const driver of selectedDrivers()) {
  const missing = await driver.missing();
  describe(
    `intake outbox: ${driver.name}`,
    { skip: skipReason(`${missing} (broker driver ${driver.name})`, !missing) },
    () => {
      let h: Harness;
      let relay: OutboxRelay;
      const contract = internsLike();
      const id = contract.contractId;
      const topics = [`${id}.created`, `${id}.updated`, `${id}.deleted`];
      before(async () => {
        // The loop stays out of the way (a long interval); the tests run passes themselves.
        h = await openHarness(driver, {
          separateAppDb: true,
          submission: {
            outbox: { relayIntervalMs: 3_600_000, reconcileIntervalMs: 3_600_000 },
          },
        });
        await h.register(contract);
        relay = h.submission.outboxRelay!;
      });
      after(async () => h?.close());

      const post = async (payload: Record<string, unknown>) => {
        const response = await h.submission.inject({
          method: 'POST',
          url: `/contracts/${id}/records`,
          payload,
        });
        assert.equal(response.statusCode, 202, response.body);
        return json<{ recordId: string }>(response).recordId;
      };
      const positionOf = async (recordId: string) => {
        const { rows } = await h.db.query<{ topic: string; partition: number; offset: string }>(
          'SELECT topic, partition, "offset" FROM intake_outbox WHERE record_id = $1 AND sent_at IS NOT NULL',
          [recordId],
        );
        assert.ok(rows[0], `record ${recordId} is marked sent in the outbox`);
        return { ...rows[0], offset: Number(rows[0].offset) };
      };
      /** Everything on the contract's topics, read by a new consumer group from the start. */
      const readAll = async (expected: number, ...recordIds: string[]) => {
        const { records, consumer } = await h.collect(topics);
        await waitFor(
          `${expected} records on ${id}${recordIds.length ? `, ${recordIds.join(', ')} among them` : ''}`,
          () =>
            records.length >= expected &&
            recordIds.every((recordId) =>
              records.some((r) => r.value.toString('utf8').includes(recordId)),
            ),
        );
        await consumer.stop();
        return records;
      };
      const envelopes = (records: BrokerRecord[]) =>
        records.map((r) => JSON.parse(r.value.toString('utf8')) as Envelope);
      /**
       * The harness's broker, telling `seen` of each publish (by record id) as it is sent
       * and once it is acknowledged; the publishes themselves are the broker's.
       */
      const observedBroker = (seen: (event: 'sent' | 'acked', recordId: string) => void) => {
        const publish = h.broker.publish.bind(h.broker);
        const broker: Broker = Object.create(h.broker) as Broker;
        broker.publish = async (...args) => {
          const { recordId } = JSON.parse(String(args[2])) as Envelope;
          seen('sent', recordId);
          const result = await publish(...args);
          seen('acked', recordId);
          return result;
        };
        return broker;
      };
      /** Runs `pass` with the harness's own relay publishing through `observedBroker`. */
      const recordingPublishes = async <T>(pass: () => Promise<T>) => {
        const calls: string[] = [];
        const publish = h.broker.publish;
        h.broker.publish = observedBroker((event, recordId) =>
          calls.push(`${event} ${recordId}`),
        ).publish;
        try {
          return { ...(await pass()), calls };
        } finally {
          h.broker.publish = publish;
        }
      };

      it('a record deleted from the broker after its ack is published again, once', async () => {
        const kept = await post(internPayload());
        const lost = await post(internPayload());
        const where = await positionOf(lost);
        await loseRecords(driver.name, h.brokerDb, where.topic, where.partition, [where.offset]);

        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 1 });
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 0 }, 'not again');
        const ids = envelopes(await readAll(2, kept, lost)).map((e) => e.recordId);
        for (const recordId of [kept, lost])
          assert.equal(ids.filter((x) => x === recordId).length, 1, `${recordId} once`);
      });

      it('a record lost after a clean pass is caught by the next one (the span check)', async () => {
        // The first pass reads the partition record by record; later ones ask the broker
        // about the span of its offsets only, and must still see a hole in the middle.
        const first = await post(internPayload());
        const where = await positionOf(first);
        const sameSlot: string[] = [];
        while (sameSlot.length < 2) {
          const recordId = await post(internPayload());
          const at = await positionOf(recordId);
          if (at.topic === where.topic && at.partition === where.partition) sameSlot.push(recordId);
        }
        assert.equal((await relay.runOnce()).republished, 0, 'nothing lost yet');
        const middle = await positionOf(sameSlot[0]!);
        await loseRecords(driver.name, h.brokerDb, middle.topic, middle.partition, [middle.offset]);
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 1 });
        assert.equal((await relay.runOnce()).republished, 0, 'not again');
      });

      it('a purged partition is published again in per-key order (create before update)', async () => {
        const payload = internPayload();
        const created = await post(payload);
        const put = await h.submission.inject({
          method: 'PUT',
          url: `/contracts/${id}/records/${payload.internId}`,
          payload: { ...payload, department: 'Physics' },
        });
        assert.equal(put.statusCode, 202, put.body);
        const updated = json<{ recordId: string }>(put).recordId;
        const before = await readAll(4, created, updated); // 2 of the first test + this create and update
        const createdAt = await positionOf(created);
        const updatedAt = await positionOf(updated);
        await loseRecords(driver.name, h.brokerDb, createdAt.topic, createdAt.partition, 'all');
        await loseRecords(driver.name, h.brokerDb, updatedAt.topic, updatedAt.partition, 'all');

        const { republished, calls } = await recordingPublishes(() => relay.runOnce());
        assert.ok(
          republished >= 2,
          `republished ${republished} (the create and the update at least)`,
        );
        // Per-key order is the relay's: the update goes out only once the broker has
        // acknowledged the create (the broker's timestamps have whole milliseconds, so two
        // publishes in one millisecond could not tell their order; these calls can).
        const createAcked = calls.lastIndexOf(`acked ${created}`);
        const updateSent = calls.indexOf(`sent ${updated}`);
        assert.ok(createAcked >= 0 && updateSent > createAcked, calls.join(', '));
        const again = await readAll(before.length);
        const after = envelopes(again);
        // The create and the update travel on two topics, so a consumer may read them in
        // either order; the broker's timestamps must not say the update came first.
        const ofKey = again
          .map((record, i) => ({ envelope: after[i]!, at: record.timestamp.getTime() }))
          .filter(({ envelope }) => envelope.naturalKey === payload.internId)
          .sort((a, b) => (a.envelope.revision ?? 0) - (b.envelope.revision ?? 0));
        assert.deepEqual(
          ofKey.map(({ envelope }) => [envelope.recordId, envelope.revision]),
          [
            [created, 1],
            [updated, 2],
          ],
        );
        const [createTime, updateTime] = ofKey.map(({ at }) => at);
        assert.ok(createTime! <= updateTime!, `create at ${createTime}, update at ${updateTime}`);
        assert.equal(new Set(after.map((e) => e.recordId)).size, after.length, 'no record twice');
        assert.equal((await relay.runOnce()).republished, 0);
      });

      it('a create whose request died after the outbox write is published by the relay', async () => {
        const payload = internPayload();
        const envelope = buildEnvelope(contract, 'intern.created', payload as Payload, {
          recordId: randomUUID(),
          traceId: randomUUID(),
          occurredAt: new Date(),
        });
        // The statement a request runs, by a process that is gone (another owner)...
        const [reservation] = await reserveCreates(
          h.db,
          [{ envelope, topic: `${id}.created` }],
          'a-process-that-died',
        );
        assert.equal(reservation!.state, 'new');
        const read = () =>
          h.submission.inject({ url: `/contracts/${id}/records/${payload.internId}` });
        assert.equal((await read()).statusCode, 404, 'a pending create is not listed');
        assert.equal((await relay.runOnce(false)).published, 0, 'not before its lease ran out');
        // ...long enough ago that its lease ran out.
        await h.db.query(
          "UPDATE intake_outbox SET created_at = now() - interval '1 hour' WHERE record_id = $1",
          [envelope.recordId],
        );
        assert.equal((await relay.runOnce(false)).published, 1);
        assert.equal((await read()).statusCode, 200);
        const all = envelopes(await readAll(1, envelope.recordId));
        assert.equal(all.filter((e) => e.recordId === envelope.recordId).length, 1);
      });

      it('an event handed to the relay during its pass is published by another pass at once', async () => {
        // The relay's pause is an hour: only wake-ups publish here. Both events are handed
        // over while a pass is under way (the first as the loop starts its first pass, the
        // second from inside the publish of the first), after that pass read what to
        // publish: the old loop armed its wake-up only once asleep, so they waited the
        // whole interval.
        const queue = async () => {
          const envelope = buildEnvelope(contract, 'intern.created', internPayload() as Payload, {
            recordId: randomUUID(),
            traceId: randomUUID(),
            occurredAt: new Date(),
          });
          await reserveCreates(h.db, [{ envelope, topic: `${id}.created` }], 'wake-test');
          return envelope.recordId;
        };
        const first = await queue();
        const second = await queue();
        const published: string[] = [];
        const broker = observedBroker((event, recordId) => {
          if (event === 'sent' && recordId === first) own.strand([second]);
          if (event === 'acked') published.push(recordId);
        });
        const contracts = new ContractCache(h.db, silentLogger());
        const own = new OutboxRelay({
          db: h.db,
          broker,
          logger: silentLogger(),
          contracts,
          owner: 'wake-test-relay',
          settings: { relayIntervalMs: 3_600_000, reconcileIntervalMs: 3_600_000 },
        });
        own.start();
        try {
          own.strand([first]);
          await waitFor('both events published', () => published.includes(second));
        } finally {
          await own.close();
          await contracts.close();
        }
        assert.deepEqual(published, [first, second]);
        for (const recordId of [first, second]) await positionOf(recordId);
      });
    },
  );
}

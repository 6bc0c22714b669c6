/**
 * JetStream only. A worker takes a batch as its long poll's first record plus one pull
 * for the rest. nats-server 2.9 answers a no-wait pull that carries an expiry and finds
 * nothing as an ordinary pull: it waits out the expiry. The worker's pull for the rest
 * did (client `js.fetch` with `no_wait` and `expires`, before a673746), so the last
 * record of every burst waited the pull's second before it was handed over (the ~1 s
 * tail of every JetStream bench run). The wait for that pull is set to a minute here: a
 * record that had to wait for it would not be committed within the test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import type { BrokerRecord } from '../../src/broker/broker.js';
import { BROKER_DRIVERS, uniqueName, waitFor, type OpenBroker } from '../helpers/broker-drivers.js';

const driver = BROKER_DRIVERS.find((d) => d.name === 'jetstream')!;
const missing = await driver.missing();

// Without a linger the rest is one no-wait pull; with the default linger, one pull that
// the server ends after the linger (`jetstream-linger.test.ts`).
for (const lingerMs of [0, undefined]) {
  describe(
    `jetstream consumer: the pull for the rest of a batch (linger ${lingerMs ?? 'default'})`,
    { skip: skipReason(`${missing} (jetstream batch pull)`, !missing) },
    () => {
      let open: OpenBroker;
      before(async () => {
        open = await driver.open(undefined, {
          batchFetchExpiresMs: 60_000,
          ...(lingerMs === undefined ? {} : { lingerMs }),
        });
      });
      after(async () => open?.cleanup());

      it('hands over the last record of a partition without waiting for the pull to expire', async () => {
        const topic = uniqueName('trickle');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        const batches: string[][] = [];
        const consumer = await open.broker.subscribeBatches(
          { groupId: uniqueName('g'), topics: [topic], maxBatch: 50 },
          async (batch) => {
            batches.push(batch.map((r) => r.value.toString()));
          },
        );
        try {
          // One record on an idle partition, then another once it is committed: each is the
          // last (only) record there when its batch is taken.
          await open.broker.publish(topic, 'k', 'one');
          await waitFor('the first record committed', () =>
            consumer.assignments().some((a) => a.committedOffset === 1),
          );
          await open.broker.publish(topic, 'k', 'two');
          await waitFor('the second record committed', () =>
            consumer.assignments().some((a) => a.committedOffset === 2),
          );
        } finally {
          await consumer.stop();
        }
        assert.deepEqual(batches, [['one'], ['two']]);
      });

      it('still takes what is waiting as one batch, in order, up to maxBatch', async () => {
        const topic = uniqueName('backlog');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        const values = Array.from({ length: 30 }, (_, i) => `r${i}`);
        for (const value of values) await open.broker.publish(topic, 'k', value);
        const batches: BrokerRecord[][] = [];
        const consumer = await open.broker.subscribeBatches(
          { groupId: uniqueName('g'), topics: [topic], maxBatch: 20 },
          async (batch) => {
            batches.push(batch);
          },
        );
        try {
          await waitFor('every record committed', () =>
            consumer.assignments().some((a) => a.committedOffset === values.length),
          );
        } finally {
          await consumer.stop();
        }
        assert.deepEqual(
          batches.map((batch) => batch.length),
          [20, 10],
          'the backlog in two batches',
        );
        assert.deepEqual(
          batches.flat().map((r) => r.value.toString()),
          values,
        );
      });
    },
  );
}

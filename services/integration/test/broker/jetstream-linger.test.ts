/**
 * JetStream only. After a batch's first record a worker waits up to `lingerMs` for more
 * of its partition (Kafka's `fetch.max.wait.ms`), so a partition fed a steady stream is
 * handed over in batches of many records instead of what happened to be there at once.
 * The linger is set to a minute here: a batch that fills within it must be handed over
 * as soon as it is full, as one batch (before the linger, the first record went alone).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { natsUrlForTests, skipReason } from '@platform/testing';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { durableName, streamName } from '../../src/broker/jetstream/naming.js';
import {
  BROKER_DRIVERS,
  deleteStreams,
  uniqueName,
  waitFor,
  type OpenBroker,
} from '../helpers/broker-drivers.js';

const driver = BROKER_DRIVERS.find((d) => d.name === 'jetstream')!;
const missing = await driver.missing();

describe(
  'jetstream consumer: the linger for a batch to fill',
  { skip: skipReason(`${missing} (jetstream linger)`, !missing) },
  () => {
    const prefix = `T${randomBytes(5).toString('hex').toUpperCase()}`;
    let open: OpenBroker;
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    before(async () => {
      open = await driver.open(undefined, { prefix, lingerMs: 60_000 });
      nc = await connect({ servers: (await natsUrlForTests())! });
      jsm = await nc.jetstreamManager();
    });
    after(async () => {
      await open?.cleanup();
      if (nc) await deleteStreams((await natsUrlForTests())!, prefix);
      await nc?.close();
    });

    it('hands over records that arrive within the linger with the first, as one batch', async () => {
      const topic = uniqueName('stream');
      const groupId = uniqueName('g');
      await open.broker.ensureTopic({ name: topic, partitions: 1 });
      const batches: string[][] = [];
      const consumer = await open.broker.subscribeBatches(
        { groupId, topics: [topic], maxBatch: 5 },
        async (batch) => {
          batches.push(batch.map((r) => r.value.toString()));
        },
      );
      try {
        await open.broker.publish(topic, 'k', 'r0');
        // The worker holds the first record (delivered, not acked) and lingers for more.
        await waitFor('the first record delivered', async () => {
          const info = await jsm.consumers.info(streamName(prefix, topic, 0), durableName(groupId));
          return info.delivered.stream_seq === 1;
        });
        for (const value of ['r1', 'r2', 'r3', 'r4']) await open.broker.publish(topic, 'k', value);
        await waitFor('the batch committed', () =>
          consumer.assignments().some((a) => a.committedOffset === 5),
        );
      } finally {
        await consumer.stop();
      }
      assert.deepEqual(batches, [['r0', 'r1', 'r2', 'r3', 'r4']]);
    });
  },
);

/**
 * JetStream only. A worker that handed its whole batch over sends the next batch's long
 * poll with the batch's ack (one socket write; the next record comes without waiting for
 * the ack's answer first), not after the ack was answered. Watched from a second
 * connection subscribed to the durable's pull subject and the stream's ack subjects:
 * one publisher's messages reach a subscriber in the order it sent them, so the poll
 * comes right before the ack (before this change it came after).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { natsUrlForTests, skipReason } from '@platform/testing';
import { connect, type NatsConnection } from 'nats';
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
  'jetstream consumer: the next long poll goes with the ack',
  { skip: skipReason(`${missing} (jetstream poll with ack)`, !missing) },
  () => {
    const prefix = `T${randomBytes(5).toString('hex').toUpperCase()}`;
    let open: OpenBroker;
    let nc: NatsConnection;
    before(async () => {
      open = await driver.open(undefined, { prefix, lingerMs: 0 });
      nc = await connect({ servers: (await natsUrlForTests())! });
    });
    after(async () => {
      await open?.cleanup();
      if (nc) await deleteStreams((await natsUrlForTests())!, prefix);
      await nc?.close();
    });

    it('sends the long poll before the ack, in the same turn', async () => {
      const topic = uniqueName('poll');
      const groupId = uniqueName('g');
      await open.broker.ensureTopic({ name: topic, partitions: 1 });
      const stream = streamName(prefix, topic, 0);
      for (const value of ['r0', 'r1', 'r2']) await open.broker.publish(topic, 'k', value);
      const seen: string[] = [];
      const watch = nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durableName(groupId)}`, {
        callback: (_err, msg) => {
          const body = JSON.parse(new TextDecoder().decode(msg.data)) as { batch: number };
          seen.push(body.batch === 1 ? 'poll' : 'pull');
        },
      });
      const acks = nc.subscribe(`$JS.ACK.${stream}.>`, {
        callback: (_err, msg) => {
          if (new TextDecoder().decode(msg.data) === '+ACK') seen.push('ack');
        },
      });
      await nc.flush();
      const consumer = await open.broker.subscribeBatches(
        { groupId, topics: [topic], maxBatch: 3 },
        async () => undefined,
      );
      try {
        await waitFor('the batch acked and the next poll sent', () => {
          const ack = seen.indexOf('ack');
          return ack >= 0 && seen.lastIndexOf('poll') > 0;
        });
      } finally {
        await consumer.stop();
        watch.unsubscribe();
        acks.unsubscribe();
      }
      // poll (r0), pull (the rest, no wait), then the next poll and the ack, in that order
      const ack = seen.indexOf('ack');
      assert.deepEqual(seen.slice(0, ack + 1), ['poll', 'pull', 'poll', 'ack'], seen.join(','));
    });
  },
);

/**
 * JetStream only. Two pulls splitting one durable (the 200-fault chaos run on PostgreSQL,
 * 28 Nov 2026 02:17 UTC): after fault 152 (`kill -9` of the service) came fault 153, a
 * NATS power loss, while the restarted service's csv adapter was still subscribing. Its
 * consumer's start assigned the three `interns.created` partitions, started their
 * workers, then failed on a later partition; the subscribe rejected, the adapter runtime
 * subscribed again a second later, and the first consumer's workers — held by nobody,
 * never stopped — went on pulling beside the new ones. Each pair split the deliveries,
 * each saw holes ("a delivery never reached this worker", in pairs, batches starting at
 * deliveries 1 and 2 with `lastDelivery` 0) and re-made the durable under the other, at
 * the 5 s back-off cap, until fault 166 killed the service about 80 s later.
 *
 * The failure here is a real one: a partition's stream deleted on the server, so that
 * partition's assign fails after the one before it succeeded; the stream is then made
 * again (`ensureTopic`). Every pull of a durable is seen from a second connection
 * subscribed to the JetStream API subject it is sent to, by the inbox it answers to.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import { pino } from 'pino';
import { durableName, streamName } from '../../src/broker/jetstream/naming.js';
import {
  BROKER_DRIVERS,
  openJetStreamBeside,
  uniqueName,
  waitFor,
  type JetStreamBeside,
} from '../helpers/broker-drivers.js';

const missing = await BROKER_DRIVERS.find((d) => d.name === 'jetstream')!.missing();

const REREAD = 'a delivery never reached this worker (an abandoned pull); re-reading the partition';

describe(
  'jetstream consumer: one reader per durable after a failed assign',
  { skip: skipReason(`${missing} (jetstream two pulls)`, !missing) },
  () => {
    const warnings: Array<{ msg: string } & Record<string, unknown>> = [];
    let js: JetStreamBeside;
    before(async () => {
      const logger = pino(
        { level: 'warn' },
        { write: (line: string) => void warnings.push(JSON.parse(line) as { msg: string }) },
      );
      js = await openJetStreamBeside(logger);
    });
    after(async () => js?.close());

    /** A two-partition topic, a fresh group, and its durable's name on each partition's stream. */
    const twoPartitions = async (base: string) => {
      const topic = uniqueName(base);
      const groupId = uniqueName('g');
      await js.open.broker.ensureTopic({ name: topic, partitions: 2 });
      return {
        topic,
        groupId,
        streams: [streamName(js.prefix, topic, 0), streamName(js.prefix, topic, 1)] as const,
        durable: durableName(groupId),
      };
    };

    it('a subscribe that failed part-way leaves no worker behind: the one subscribed again reads alone', async () => {
      const { open, nc } = js;
      const { topic, groupId, streams, durable } = await twoPartitions('split');
      // Every pull of partition 0's durable, in the order the server routed them.
      const pulls: string[] = [];
      const watch = nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${streams[0]}.${durable}`, {
        callback: (_err, msg) => {
          if (msg.reply) pulls.push(msg.reply);
        },
      });
      await nc.flush();
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete(streams[1]);
      const seen = new Set<string>();
      const handler = async (records: Array<{ value: Buffer }>) => {
        for (const r of records) seen.add(r.value.toString());
      };
      // Partition 0 is assigned (its worker pulls), partition 1's assign fails.
      await assert.rejects(
        open.broker.subscribeBatches({ groupId, topics: [topic], maxBatch: 5 }, handler),
        /stream not found/i,
      );
      await waitFor('the first consumer pulled partition 0', () => pulls.length > 0);
      // As the adapter runtime does on its next refresh, once the server answers again.
      await open.broker.ensureTopic({ name: topic, partitions: 2 });
      const from = warnings.length;
      const consumer = await open.broker.subscribeBatches(
        { groupId, topics: [topic], maxBatch: 5 },
        handler,
      );
      try {
        const values = Array.from({ length: 30 }, (_, i) => `r${i}`);
        for (const [i, value] of values.entries()) await open.broker.publish(topic, `k${i}`, value);
        await waitFor('every record handled', () => values.every((v) => seen.has(v)), 30_000);
        // Three more pulls (idle long polls, one a second): a second reader pulls as often.
        const handledAt = pulls.length;
        await waitFor('three idle pulls', () => pulls.length >= handledAt + 3, 15_000);
      } finally {
        await consumer.stop();
        watch.unsubscribe();
      }
      // From the second inbox's first pull on (the first is the failed consumer's), one
      // inbox: the failed consumer's pulls all went out before it (one connection).
      const first = pulls[0]!;
      const split = pulls.findIndex((inbox) => inbox !== first);
      assert.ok(split > 0, `the second consumer pulled (${pulls.length} pulls, one inbox)`);
      const readers = new Set(pulls.slice(split));
      assert.equal(
        readers.size,
        1,
        `one reader of the durable after the second subscribe (${readers.size} inboxes; ` +
          `the failed consumer's pulled ${pulls.slice(split).filter((p) => p === first).length} times after it)`,
      );
      const rereads = warnings.slice(from).filter((w) => w.msg === REREAD);
      assert.equal(rereads.length, 0, `no re-read (${rereads.length} logged)`);
      assert.equal(consumer.assignments().length, 2);
    });

    it('assigns on a later refresh a partition whose assign failed after another of its topic succeeded', async () => {
      const { open, nc } = js;
      const { topic, groupId, streams } = await twoPartitions('partial');
      const seen = new Set<string>();
      const consumer = await open.broker.subscribeBatches(
        { groupId, topics: [], maxBatch: 5 },
        async (records) => {
          for (const r of records) seen.add(r.value.toString());
        },
      );
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.delete(streams[1]);
        // Partition 0 is assigned, partition 1's assign fails (a server error mid-refresh).
        await assert.rejects(consumer.addTopics!([topic]), /stream not found/i);
        assert.deepEqual(
          consumer.assignments().map((a) => a.partition),
          [0],
        );
        await open.broker.ensureTopic({ name: topic, partitions: 2 });
        const values = Array.from({ length: 30 }, (_, i) => `r${i}`);
        const partitions = new Set<number>();
        for (const [i, value] of values.entries())
          partitions.add((await open.broker.publish(topic, `k${i}`, value)).partition);
        assert.deepEqual([...partitions].sort(), [0, 1], 'records on both partitions');
        // The periodic refresh (every second) assigns partition 1 and its records come.
        await waitFor('every record handled', () => values.every((v) => seen.has(v)), 20_000).catch(
          (error: Error) => {
            throw new Error(
              `${error.message}: ${seen.size} of ${values.length} handled, partitions assigned ` +
                JSON.stringify(consumer.assignments().map((a) => a.partition)),
            );
          },
        );
        assert.deepEqual(
          consumer
            .assignments()
            .map((a) => a.partition)
            .sort(),
          [0, 1],
        );
      } finally {
        await consumer.stop();
      }
    });
  },
);

/**
 * One conformance suite for every broker driver: order per key, fan-out to two groups,
 * redelivery after a crash before commit, batches (order per key, a failed batch
 * redelivered whole, partial progress never committed), pause holding offsets and resume draining,
 * seek replaying, paused-before-assignment, a backlog drained without starving the
 * process, unknown topics, the message size limit and a broker that is down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import {
  BrokerUnavailableError,
  MessageTooLargeError,
  UnknownTopicError,
} from '../../src/broker/broker-unavailable-error.js';
import type { BrokerRecord } from '../../src/broker/broker.js';
import {
  selectedDrivers,
  uniqueName,
  waitFor,
  type OpenBroker,
} from '../helpers/broker-drivers.js';

for (const driver of selectedDrivers()) {
  const missing = await driver.missing();
  describe(
    `broker conformance: ${driver.name}`,
    { skip: skipReason(`${missing} (broker driver ${driver.name})`, !missing) },
    () => {
      let open: OpenBroker;
      before(async () => {
        open = await driver.open();
      });
      after(async () => {
        await open?.cleanup();
      });

      it('creates topics idempotently and lists them; publishing to an unknown topic fails', async () => {
        const topic = uniqueName('topics');
        await open.broker.ensureTopic({ name: topic, partitions: 3 });
        await open.broker.ensureTopic({ name: topic, partitions: 5 });
        const listed = (await open.broker.listTopics()).find((spec) => spec.name === topic);
        assert.deepEqual(listed, { name: topic, partitions: 3 });
        await assert.rejects(
          open.broker.publish(uniqueName('missing'), 'k', 'v'),
          UnknownTopicError,
        );
      });

      it('refuses a message past its limit (value and headers) with MessageTooLargeError, publishing nothing', async () => {
        const topic = uniqueName('size');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        const max = open.broker.maxMessageBytes;
        assert.ok(max >= 64 * 1024, `limit ${max}`);
        const refused = await open.broker
          .publish(topic, 'k', Buffer.alloc(max + 1, 'x'))
          .catch((error: unknown) => error);
        assert.ok(refused instanceof MessageTooLargeError, String(refused));
        assert.equal(refused.maxBytes, max);
        assert.ok(refused.bytes > max);
        // Under the limit alone, over it with its headers.
        await assert.rejects(
          open.broker.publish(topic, 'k', Buffer.alloc(max - 50, 'y'), { big: 'h'.repeat(100) }),
          MessageTooLargeError,
        );
        const accepted = await open.broker.publish(topic, 'k', Buffer.alloc(max - 200, 'z'));
        assert.equal(accepted.offset, 0, 'the refused messages took no offset');
      });

      it('keeps the order of records per key, each key on one partition', async () => {
        const topic = uniqueName('order');
        await open.broker.ensureTopic({ name: topic, partitions: 3 });
        const keys = ['a', 'b', 'c', 'd', 'e'];
        for (let i = 0; i < 20; i += 1) {
          for (const key of keys)
            await open.broker.publish(topic, key, JSON.stringify({ key, i }), { n: String(i) });
        }
        const seen = new Map<string, BrokerRecord[]>();
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async (record) => {
            seen.set(record.key, [...(seen.get(record.key) ?? []), record]);
          },
        );
        await waitFor(
          '100 records',
          () => [...seen.values()].reduce((n, list) => n + list.length, 0) === 100,
        );
        await consumer.stop();
        for (const key of keys) {
          const records = seen.get(key)!;
          assert.deepEqual(
            records.map((record) => JSON.parse(record.value.toString()).i),
            [...Array(20).keys()],
          );
          assert.equal(
            new Set(records.map((record) => record.partition)).size,
            1,
            `key ${key} on one partition`,
          );
          assert.deepEqual(
            records.map((record) => record.headers.n),
            records.map((_, i) => String(i)),
          );
          assert.ok(
            records.every(
              (record) =>
                record.timestamp instanceof Date && !Number.isNaN(record.timestamp.getTime()),
            ),
          );
        }
        const total = consumer
          .assignments()
          .reduce((sum, a) => sum + (a.endOffset - a.committedOffset), 0);
        assert.equal(total, 0, 'no lag once everything is committed');
      });

      it('carries every key as it was published: line breaks, surrounding spaces, any script', async () => {
        const topic = uniqueName('keys');
        await open.broker.ensureTopic({ name: topic, partitions: 2 });
        // A NATS header value holds no CR or LF and loses its surrounding spaces; a key
        // is any text a natural key holds (issue 11's review: a 503 on JetStream alone).
        const keys = [
          'plain',
          'line\nbreak',
          'a\r\nInjected: yes',
          '  spaced  ',
          '\ttabbed',
          'kéy ü 🦊',
          '"quoted"',
          '%0A',
          '',
          ' ',
        ];
        for (const [i, key] of keys.entries()) await open.broker.publish(topic, key, String(i));
        const seen = new Map<number, string>();
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async (record) => {
            seen.set(Number(record.value.toString()), record.key);
          },
        );
        await waitFor(`${keys.length} records`, () => seen.size === keys.length);
        await consumer.stop();
        assert.deepEqual(
          keys.map((_, i) => seen.get(i)),
          keys,
        );
      });

      it('hands batches of one partition in offset order, keeping the order per key', async () => {
        const topic = uniqueName('batch-order');
        await open.broker.ensureTopic({ name: topic, partitions: 3 });
        const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
        for (let i = 0; i < 30; i += 1)
          for (const key of keys) await open.broker.publish(topic, key, JSON.stringify({ key, i }));
        const batches: BrokerRecord[][] = [];
        const consumer = await open.broker.subscribeBatches(
          { groupId: uniqueName('g'), topics: [topic], maxBatch: 25 },
          async (batch) => {
            batches.push(batch);
          },
        );
        await waitFor(
          '180 records',
          () => batches.reduce((n, batch) => n + batch.length, 0) === 180,
        );
        await consumer.stop();
        for (const batch of batches) {
          assert.ok(
            batch.length >= 1 && batch.length <= 25,
            `batch of ${batch.length} within maxBatch`,
          );
          assert.equal(new Set(batch.map((r) => r.partition)).size, 1, 'one partition per batch');
          assert.deepEqual(
            batch.map((r) => r.offset),
            batch.map((_, i) => batch[0]!.offset + i),
            'consecutive offsets',
          );
        }
        assert.ok(
          batches.some((batch) => batch.length > 1),
          'a backlog is read more than one record at a time',
        );
        for (const key of keys) {
          const order = batches
            .flat()
            .filter((r) => r.key === key)
            .map((r) => JSON.parse(r.value.toString()).i);
          assert.deepEqual(order, [...Array(30).keys()]);
        }
        assert.equal(
          consumer.assignments().reduce((sum, a) => sum + (a.endOffset - a.committedOffset), 0),
          0,
        );
      });

      it('redelivers a failed batch whole, before anything later of its partition, and never commits part of it', async () => {
        const topic = uniqueName('batch-fail');
        const group = uniqueName('g');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        for (let i = 0; i < 6; i += 1) await open.broker.publish(topic, 'k', `r${i}`);
        const deliveries: string[][] = [];
        let failures = 0;
        const consumer = await open.broker.subscribeBatches(
          { groupId: group, topics: [topic], maxBatch: 4 },
          async (batch) => {
            deliveries.push(batch.map((r) => r.value.toString()));
            if (failures < 2) {
              failures += 1;
              // Partial progress: the batch's handler did some work before failing.
              throw new Error('target down');
            }
          },
        );
        await waitFor('the first failure', () => failures >= 1);
        assert.equal(
          consumer.assignments()[0]!.committedOffset,
          0,
          'nothing of a failed batch is committed',
        );
        await open.broker.publish(topic, 'k', 'r6');
        await waitFor('every record', () => deliveries.flat().includes('r6'));
        await waitFor('commits', () => consumer.assignments()[0]!.committedOffset === 7);
        await consumer.stop();
        const first = deliveries[0]!;
        assert.equal(first[0], 'r0');
        assert.deepEqual(deliveries[1], first, 'the failed batch comes back whole');
        assert.deepEqual(deliveries[2]!.slice(0, first.length), first, 'and again, first');
        const delivered = deliveries.slice(2).flat();
        assert.deepEqual(
          delivered,
          ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6'],
          'then everything once, in order',
        );
      });

      it('gives publishes made at once dense offsets in call order per partition, each record its own value and headers', async () => {
        const topic = uniqueName('together');
        await open.broker.ensureTopic({ name: topic, partitions: 3 });
        // Many publishes in flight together (the SQL log appends them in one statement).
        const published = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            open.broker.publish(topic, `k${i % 5}`, Buffer.from([i, 0, 255]), { n: String(i) }),
          ),
        );
        const byPartition = new Map<number, number[]>();
        for (const p of published)
          byPartition.set(p.partition, [...(byPartition.get(p.partition) ?? []), p.offset]);
        for (const [partition, offsets] of byPartition) {
          const first = offsets[0]!;
          assert.deepEqual(
            offsets,
            offsets.map((_, i) => first + i),
            `partition ${partition}: dense offsets in call order`,
          );
        }
        const seen: BrokerRecord[] = [];
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async (r) => void seen.push(r),
        );
        await waitFor('all 60', () => seen.length >= 60);
        await consumer.stop();
        for (const record of seen) {
          const i = Number(record.headers.n);
          assert.deepEqual([...record.value], [i, 0, 255], `record ${i}: its own bytes`);
          assert.equal(record.key, `k${i % 5}`);
          assert.equal(record.offset, published[i]!.offset);
        }
        for (let k = 0; k < 5; k += 1) {
          const order = seen.filter((r) => r.key === `k${k}`).map((r) => Number(r.headers.n));
          assert.deepEqual(
            order,
            [...order].sort((a, b) => a - b),
            `key k${k} in publish order`,
          );
        }
      });

      it('delivers everything to each of two groups independently', async () => {
        const topic = uniqueName('fanout');
        await open.broker.ensureTopic({ name: topic, partitions: 2 });
        const published = [];
        for (let i = 0; i < 30; i += 1)
          published.push(await open.broker.publish(topic, `k${i % 7}`, `v${i}`));
        const one: string[] = [];
        const two: string[] = [];
        const c1 = await open.broker.subscribe(
          { groupId: uniqueName('one'), topics: [topic] },
          async (r) => void one.push(r.value.toString()),
        );
        const c2 = await open.broker.subscribe(
          { groupId: uniqueName('two'), topics: [topic] },
          async (r) => void two.push(r.value.toString()),
        );
        await waitFor('both groups', () => one.length >= 30 && two.length >= 30);
        await Promise.all([c1.stop(), c2.stop()]);
        const expected = published.map((_, i) => `v${i}`).sort();
        assert.deepEqual([...one].sort(), expected);
        assert.deepEqual([...two].sort(), expected);
      });

      it('delivers a record again after a crash before its commit', async () => {
        const topic = uniqueName('crash');
        const group = uniqueName('g');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        await open.broker.publish(topic, 'k', 'first');
        await open.broker.publish(topic, 'k', 'second');
        const firstRun: string[] = [];
        let crashed = false;
        const c1 = await open.broker.subscribe(
          { groupId: group, topics: [topic] },
          async (record) => {
            firstRun.push(record.value.toString());
            if (record.value.toString() === 'second') {
              crashed = true;
              throw new Error('process crashed before commit');
            }
          },
        );
        await waitFor('the crash', () => crashed);
        await c1.stop();
        assert.equal(c1.assignments()[0]!.committedOffset, 1, 'only the first record is committed');
        const secondRun: string[] = [];
        const c2 = await open.broker.subscribe(
          { groupId: group, topics: [topic] },
          async (record) => void secondRun.push(record.value.toString()),
        );
        await waitFor('redelivery', () => secondRun.length >= 1);
        // One partition delivers in order: once a record published after both has come,
        // a redelivery of either would have come before it.
        await open.broker.publish(topic, 'k', 'marker');
        await waitFor('the marker', () => secondRun.includes('marker'));
        await c2.stop();
        assert.deepEqual(
          secondRun,
          ['second', 'marker'],
          'the uncommitted record comes back, the committed one does not',
        );
      });

      it('retries a record whose handler throws, before any later record of its partition', async () => {
        const topic = uniqueName('retry');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        await open.broker.publish(topic, 'k', '1');
        await open.broker.publish(topic, 'k', '2');
        const seen: string[] = [];
        let failures = 0;
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async (record) => {
            seen.push(record.value.toString());
            if (record.value.toString() === '1' && failures < 2) {
              failures += 1;
              throw new Error('transient');
            }
          },
        );
        await waitFor('both records', () => seen.includes('2'));
        await consumer.stop();
        assert.deepEqual(seen, ['1', '1', '1', '2']);
      });

      it('holds offsets while paused and drains the backlog on resume', async () => {
        const topic = uniqueName('pause');
        await open.broker.ensureTopic({ name: topic, partitions: 2 });
        const seen: string[] = [];
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async (r) => void seen.push(r.value.toString()),
        );
        await open.broker.publish(topic, 'k0', 'before');
        await waitFor('first record', () => seen.length === 1);
        await waitFor(
          'its commit',
          () => consumer.assignments().reduce((sum, a) => sum + a.committedOffset, 0) === 1,
        );
        consumer.pause();
        assert.equal(consumer.paused, true);
        const committedBefore = consumer.assignments().map((a) => a.committedOffset);
        for (let i = 0; i < 6; i += 1) await open.broker.publish(topic, `k${i}`, `held${i}`);
        // The consumer has read the partitions' ends after the publishes (the lag shows
        // them): a consumer that ignored the pause would have fetched them by then.
        const lagOf = () =>
          consumer.assignments().reduce((sum, a) => sum + a.endOffset - a.committedOffset, 0);
        await waitFor('the backlog to show as lag', () => lagOf() === 6);
        assert.deepEqual(seen, ['before'], 'nothing is delivered while paused');
        assert.deepEqual(
          consumer.assignments().map((a) => a.committedOffset),
          committedBefore,
          'offsets do not advance',
        );
        consumer.resume();
        await waitFor('backlog', () => seen.length === 7);
        await waitFor('commits', () =>
          consumer.assignments().every((a) => a.committedOffset === a.endOffset),
        );
        await consumer.stop();
        assert.deepEqual(
          seen.slice(1).sort(),
          [0, 1, 2, 3, 4, 5].map((i) => `held${i}`),
        );
      });

      it('reports paused once assigned when paused before its topics exist', async () => {
        const topic = uniqueName('later');
        const seen: string[] = [];
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async (r) => void seen.push(r.value.toString()),
        );
        consumer.pause();
        assert.deepEqual(consumer.assignments(), []);
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        await open.broker.publish(topic, 'k', 'v');
        await waitFor(
          'assignment',
          () => consumer.assignments().length === 1 && consumer.assignments()[0]!.endOffset === 1,
        );
        assert.equal(consumer.paused, true);
        assert.deepEqual(seen, []);
        consumer.resume();
        await waitFor('delivery', () => seen.length === 1);
        await consumer.stop();
      });

      it('replays from an earlier offset after seek', async () => {
        const topic = uniqueName('seek');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        for (let i = 0; i < 5; i += 1) await open.broker.publish(topic, 'k', `r${i}`);
        const seen: string[] = [];
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async (r) => void seen.push(r.value.toString()),
        );
        await waitFor('first pass', () => seen.length === 5);
        await waitFor('commits', () => consumer.assignments()[0]?.committedOffset === 5);
        await consumer.seek(topic, 0, 2);
        await waitFor('replay', () => seen.length === 8);
        await consumer.stop();
        assert.deepEqual(seen, ['r0', 'r1', 'r2', 'r3', 'r4', 'r2', 'r3', 'r4']);
      });

      it('starts a new group at the end when fromBeginning is false', async () => {
        const topic = uniqueName('latest');
        await open.broker.ensureTopic({ name: topic, partitions: 1 });
        await open.broker.publish(topic, 'k', 'old');
        const seen: string[] = [];
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic], fromBeginning: false },
          async (r) => void seen.push(r.value.toString()),
        );
        await open.broker.publish(topic, 'k', 'new');
        await waitFor('new record', () => seen.length === 1);
        await consumer.stop();
        assert.deepEqual(seen, ['new']);
      });

      it('leaves the process responsive while a handler that queries the database drains a backlog', async () => {
        const topic = uniqueName('fair');
        await open.broker.ensureTopic({ name: topic, partitions: 3 });
        for (let i = 0; i < 900; i += 1) await open.broker.publish(topic, `k${i % 9}`, String(i));
        let handled = 0;
        let lastTick = Date.now();
        let longestGap = 0;
        const ticker = setInterval(() => {
          longestGap = Math.max(longestGap, Date.now() - lastTick);
          lastTick = Date.now();
        }, 10);
        const started = Date.now();
        const consumer = await open.broker.subscribe(
          { groupId: uniqueName('g'), topics: [topic] },
          async () => {
            // a few milliseconds of database work per record, as a relational target does
            await open.db.query('SELECT count(*) FROM generate_series(1, 20000)');
            handled += 1;
          },
        );
        try {
          await waitFor('900 records', () => handled === 900, 60_000);
        } finally {
          clearInterval(ticker);
          await consumer.stop();
        }
        // Starved, the timers would not run until a whole batch round was done: most of the
        // drain. Relative to the drain's length, so a loaded machine slows both alike.
        const drainMs = Date.now() - started;
        assert.ok(
          longestGap < Math.max(250, drainMs / 4),
          `timers waited ${longestGap} ms of a ${drainMs} ms drain`,
        );
      });
    },
  );

  describe(`broker down: ${driver.name}`, { skip: missing ? 'engine missing' : undefined }, () => {
    it('throws BrokerUnavailableError on publish and ping once the broker is gone', async () => {
      const own = await driver.open();
      const topic = uniqueName('down');
      await own.broker.ensureTopic({ name: topic, partitions: 1 });
      await own.broker.publish(topic, 'k', 'ok');
      if (driver.name === 'jetstream') await own.broker.close();
      else await own.db.close();
      await assert.rejects(own.broker.publish(topic, 'k', 'lost'), BrokerUnavailableError);
      await assert.rejects(own.broker.ping(), BrokerUnavailableError);
      await own.cleanup().catch(() => undefined);
    });
  });
}

/**
 * Broker retention per topic (issue 11 item 7): the `BROKER_RETENTION` syntax and its
 * bad values; the SQL log pruning by age and by size, never past the slowest consumer
 * group's committed offset unless the topic says `drop-unread`, and a group reading on
 * from the oldest record kept; JetStream streams given (and updated to) the topic's
 * max_age and max_bytes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import { natsUrlForTests, skipReason } from '@platform/testing';
import { connect } from 'nats';
import type { Broker, BrokerRecord } from '../../src/broker/broker.js';
import { integrationEnvSchema } from '../../src/config.js';
import { createJetStreamBroker } from '../../src/broker/jetstream/jetstream-broker.js';
import { streamName } from '../../src/broker/jetstream/naming.js';
import { parseRetention, retentionFor } from '../../src/broker/retention.js';
import { createSqlLogBroker } from '../../src/broker/sql-log/sql-log-broker.js';
import { silentLogger, uniqueName, waitFor } from '../helpers/broker-drivers.js';

describe('BROKER_RETENTION', () => {
  it('reads ages, sizes, no limit and drop-unread per topic or prefix', () => {
    const entries = parseRetention(
      '*=7d/1GiB, platform.dlq=30d/-, interns.*=90m/500MB/drop-unread',
    );
    assert.deepEqual(retentionFor(entries, 'orders.created'), {
      maxAgeMs: 7 * 86_400_000,
      maxBytes: 1024 ** 3,
    });
    assert.deepEqual(retentionFor(entries, 'platform.dlq'), { maxAgeMs: 30 * 86_400_000 });
    assert.deepEqual(retentionFor(entries, 'interns.created'), {
      maxAgeMs: 90 * 60_000,
      maxBytes: 500_000_000,
      dropUnread: true,
    });
    assert.deepEqual(retentionFor(parseRetention('a.*=1h/-'), 'b.created'), {}, 'no entry: kept');
    assert.deepEqual(parseRetention(''), []);
  });

  it('is read from the environment; a bad value names the variable', () => {
    const good = integrationEnvSchema.parse({ BROKER_RETENTION: 'platform.dlq=30d/-' });
    assert.deepEqual(good.BROKER_RETENTION, [
      { pattern: 'platform.dlq', retention: { maxAgeMs: 30 * 86_400_000 } },
    ]);
    assert.deepEqual(integrationEnvSchema.parse({}).BROKER_RETENTION, []);
    const bad = integrationEnvSchema.safeParse({ BROKER_RETENTION: '*=7 weeks/-' });
    assert.equal(bad.success, false);
    assert.deepEqual(bad.error!.issues[0]!.path, ['BROKER_RETENTION']);
  });

  it('refuses what it cannot read, naming the entry', () => {
    for (const bad of ['*', '*=7 days/-', '*=7d/1TB', '*=7d/1GiB/forever', '=7d/-', '*=0s/-'])
      assert.throws(() => parseRetention(bad), RangeError, bad);
  });
});

describe('SQL log retention (PGlite)', () => {
  let db: SqlDatabase;
  let broker: Broker;
  const topic = uniqueName('kept');
  const unread = uniqueName('unread');
  const sized = uniqueName('sized');

  before(async () => {
    db = await createSqlDatabase({ dataDir: 'memory://' });
    broker = await createSqlLogBroker({
      db,
      logger: silentLogger(),
      pollIntervalMs: 50,
      // Applied by the test (applyRetention), not by the timer.
      retentionIntervalMs: 3_600_000,
      retention: parseRetention(`${topic}=1h/-,${unread}=1h/-/drop-unread,${sized}=-/1000B`),
    });
  });
  after(async () => {
    await broker?.close();
    await db?.close();
  });

  const offsets = async (name: string) =>
    (
      await db.query<{ offset: string }>(
        'SELECT "offset" FROM broker_messages WHERE topic = $1 ORDER BY "offset"',
        [name],
      )
    ).rows.map((row) => Number(row.offset));
  /** Makes the first `count` records of a topic two hours old. */
  const age = (name: string, count: number) =>
    db.query(
      `UPDATE broker_messages SET created_at = now() - interval '2 hours' WHERE topic = $1 AND "offset" < $2`,
      [name, count],
    );
  /** A consumer group whose committed offset on partition 0 is `offset`. */
  const groupAt = async (name: string, offset: number) => {
    const group = await broker.subscribeBatches(
      { groupId: uniqueName('slow'), topics: [] },
      async () => undefined,
    );
    await group.seek(name, 0, offset);
    await group.stop();
  };

  it('prunes records older than the age, never past the slowest group', async () => {
    for (const name of [topic, unread]) {
      await broker.ensureTopic({ name, partitions: 1 });
      for (let i = 0; i < 6; i += 1) await broker.publish(name, 'k', `record ${i}`);
      await age(name, 5);
      await groupAt(name, 3);
    }
    await broker.applyRetention!();
    assert.deepEqual(await offsets(topic), [3, 4, 5], 'the slow group keeps 3 and 4');
    assert.deepEqual(await offsets(unread), [5], 'drop-unread: every old record goes');
  });

  it('keeps the newest records within the size, and a new group reads on from the oldest kept', async () => {
    await broker.ensureTopic({ name: sized, partitions: 1 });
    // 100-byte values; headers are '{}' (2 bytes): 102 bytes a record, 9 fit in 1000.
    for (let i = 0; i < 20; i += 1) await broker.publish(sized, 'k', `${i}`.padStart(100, '.'));
    await broker.applyRetention!();
    assert.deepEqual(
      await offsets(sized),
      Array.from({ length: 9 }, (_, i) => 11 + i),
    );
    const seen: BrokerRecord[] = [];
    const reader = await broker.subscribeBatches(
      { groupId: uniqueName('reader'), topics: [sized] },
      async (batch) => void seen.push(...batch),
    );
    await waitFor('the kept records', () => seen.length === 9);
    await reader.stop();
    assert.deepEqual(
      seen.map((r) => r.offset),
      Array.from({ length: 9 }, (_, i) => 11 + i),
    );
  });
});

const natsUrl = await natsUrlForTests();
describe(
  'JetStream retention',
  { skip: skipReason('NATS JetStream on 127.0.0.1:4222 (retention)', Boolean(natsUrl)) },
  () => {
    const prefix = `T${randomBytes(5).toString('hex').toUpperCase()}`;
    const topic = 'orders.created';
    const brokers: Broker[] = [];
    const open = async (retention: string) => {
      const broker = await createJetStreamBroker({
        url: natsUrl!,
        logger: silentLogger(),
        prefix,
        retention: parseRetention(retention),
      });
      brokers.push(broker);
      return broker;
    };
    const limits = async () => {
      const nc = await connect({ servers: natsUrl!, timeout: 2000 });
      try {
        const jsm = await nc.jetstreamManager();
        return await Promise.all(
          [0, 1].map(async (partition) => {
            const { config } = await jsm.streams.info(streamName(prefix, topic, partition));
            return { maxAge: config.max_age, maxBytes: config.max_bytes };
          }),
        );
      } finally {
        await nc.close();
      }
    };
    after(async () => {
      for (const broker of brokers) await broker.close();
      const nc = await connect({ servers: natsUrl!, timeout: 2000 });
      const jsm = await nc.jetstreamManager();
      for (const partition of [0, 1])
        await jsm.streams.delete(streamName(prefix, topic, partition)).catch(() => undefined);
      await nc.close();
    });

    it("gives each partition stream the topic's age and its share of the size, and updates them", async () => {
      const first = await open('orders.*=2h/2MiB');
      await first.ensureTopic({ name: topic, partitions: 2 });
      const hour = 3_600_000_000_000;
      assert.deepEqual(await limits(), [
        { maxAge: 2 * hour, maxBytes: 1024 ** 2 },
        { maxAge: 2 * hour, maxBytes: 1024 ** 2 },
      ]);
      // Another setting at the next start applies to the existing streams.
      const second = await open('orders.created=1h/-');
      await second.ensureTopic({ name: topic, partitions: 2 });
      assert.deepEqual(await limits(), [
        { maxAge: hour, maxBytes: -1 },
        { maxAge: hour, maxBytes: -1 },
      ]);
    });
  },
);

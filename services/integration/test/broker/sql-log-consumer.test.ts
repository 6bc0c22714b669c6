/**
 * The SQL log consumer on its own: a poll that fails on one partition still waits for the
 * other partitions' batches before the next poll, so no partition ever has two handlers
 * running at once (the next poll would read the uncommitted record again).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import { createSqlLogBroker } from '../../src/broker/sql-log/sql-log-broker.js';
import { partitionFor } from '../../src/broker/partitioner.js';
import { silentLogger, waitFor } from '../helpers/broker-drivers.js';

describe('sql log consumer', () => {
  it('never runs two handlers of one partition when a poll failed on another partition', async () => {
    const real = await createSqlDatabase({ dataDir: 'memory://' });
    let failPartitionOneReads = 1;
    // Reads of partition 1 fail once; everything else goes to the real database.
    const db = new Proxy(real, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver);
        return (sql: string, params?: unknown[]) => {
          if (
            sql.includes('FROM broker_messages') &&
            params?.[1] === 1 &&
            failPartitionOneReads > 0
          ) {
            failPartitionOneReads -= 1;
            return Promise.reject(new Error('partition 1 read failed'));
          }
          return target.query(sql, params as never);
        };
      },
    }) as SqlDatabase;
    const broker = await createSqlLogBroker({
      db,
      logger: silentLogger(),
      pollIntervalMs: 10,
      lingerMs: 1,
      redeliveryDelayMs: 10,
    });
    try {
      await broker.ensureTopic({ name: 'orders', partitions: 2 });
      const keyOn = (partition: number) =>
        Array.from({ length: 100 }, (_, i) => `k${i}`).find(
          (key) => partitionFor(key, 2) === partition,
        )!;
      await broker.publish('orders', keyOn(0), 'slow');
      await broker.publish('orders', keyOn(1), 'other');
      const running = [0, 0];
      let most = 0;
      const handled: string[] = [];
      const consumer = await broker.subscribe(
        { groupId: 'g', topics: ['orders'], fromBeginning: true },
        async (record) => {
          running[record.partition]! += 1;
          most = Math.max(most, running[record.partition]!);
          if (record.partition === 0) await new Promise((resolve) => setTimeout(resolve, 300));
          running[record.partition]! -= 1;
          handled.push(record.value.toString());
        },
      );
      await waitFor('both records', () => handled.includes('slow') && handled.includes('other'));
      await consumer.stop();
      assert.equal(most, 1, 'one handler at a time per partition');
      assert.deepEqual(
        handled.filter((value) => value === 'slow'),
        ['slow'],
        'the slow record handled once',
      );
    } finally {
      await broker.close();
      await real.close();
    }
  });
});

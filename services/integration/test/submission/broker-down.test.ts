/**
 * "Broker down → 503 and nothing published", checked on the broker itself: the SQL-log
 * broker on a PostgreSQL database loses its connections, a submission and a dead-letter
 * replay are refused with 503, and once the broker is back the topic holds the record
 * published before the outage and nothing else.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import {
  createTestDatabase,
  postgresUrlForTests,
  skipReason,
  type TestDatabase,
} from '@platform/testing';
import { createBroker, type Broker, type BrokerRecord } from '../../src/broker/broker.js';
import { buildControlPlaneApp } from '../../src/control-plane/app.js';
import { insertDeadLetter } from '../../src/dead-letters/dead-letter-store.js';
import { migrateIntegration } from '../../src/migrations.js';
import { buildSubmissionApp } from '../../src/submission/app.js';
import { silentLogger, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import { internPayload, internsLike } from '../support/contracts.js';

const postgres = await postgresUrlForTests();

describe(
  'broker down: nothing published (SQL log on PostgreSQL)',
  { skip: skipReason('PostgreSQL on 127.0.0.1:5432', Boolean(postgres)) },
  () => {
    let appDb: SqlDatabase;
    let brokerDb: TestDatabase;
    let brokerSql: SqlDatabase;
    let broker: Broker;
    const contract = internsLike();
    const topic = `${contract.contractId}.created`;
    before(async () => {
      appDb = await createSqlDatabase({ dataDir: 'memory://' });
      await migrateIntegration(appDb);
      brokerDb = await createTestDatabase('integration_broker_down');
      brokerSql = await createSqlDatabase({ url: brokerDb.url, dataDir: 'unused', poolSize: 2 });
      broker = await createBroker({ db: brokerSql, logger: silentLogger() });
    });
    after(async () => {
      await appDb?.close();
      await brokerDb?.drop();
    });

    it('refuses a submission and a replay with 503 and leaves the topic as it was', async () => {
      const logger = silentLogger();
      const controlPlane = await buildControlPlaneApp({
        db: appDb,
        broker,
        logger,
        seedInternsAttachments: false,
      });
      const submission = await buildSubmissionApp({ db: appDb, broker, logger });
      try {
        assert.equal(
          (await controlPlane.inject({ method: 'POST', url: '/contracts', payload: contract }))
            .statusCode,
          201,
        );
        const before = internPayload();
        assert.equal(
          (
            await submission.inject({
              method: 'POST',
              url: `/contracts/${contract.contractId}/records`,
              payload: before,
            })
          ).statusCode,
          202,
        );
        const deadLetterId = randomUUID();
        await insertDeadLetter(appDb, {
          id: deadLetterId,
          deadLetterTopic: 'platform.dlq',
          deadLetterPartition: 0,
          deadLetterOffset: 7,
          originalTopic: topic,
          originalPartition: 0,
          originalOffset: 0,
          originalKey: 'K-dl',
          contractId: contract.contractId,
          originalPayload: {
            recordId: randomUUID(),
            contractId: contract.contractId,
            recordType: 'intern.created',
            schemaVersion: 1,
            naturalKey: 'K-dl',
            occurredAt: new Date().toISOString(),
            traceId: randomUUID(),
            payload: { ...internPayload(), internId: 'K-dl' },
          },
          errorType: 'RETRY_EXHAUSTED',
          errorMessage: 'x',
          failedAdapter: 'adapter.csv',
          attemptCount: 3,
          quarantinedAt: new Date().toISOString(),
          traceId: null,
        });

        await brokerSql.close(); // the broker's database connections are gone
        const during = internPayload();
        const refused = await submission.inject({
          method: 'POST',
          url: `/contracts/${contract.contractId}/records`,
          payload: during,
        });
        assert.equal(refused.statusCode, 503);
        assert.equal(
          (
            await submission.inject({
              url: `/contracts/${contract.contractId}/records/${during.internId}`,
            })
          ).statusCode,
          404,
        );
        const replay = await controlPlane.inject({
          method: 'POST',
          url: `/dead-letters/${deadLetterId}/replay`,
        });
        assert.equal(replay.statusCode, 503);
        assert.equal(
          (await controlPlane.inject({ url: `/dead-letters/${deadLetterId}` })).json().deadLetter
            .replayed,
          false,
        );

        // The broker comes back: its log holds the earlier record only.
        const revived = await createSqlDatabase({
          url: brokerDb.url,
          dataDir: 'unused',
          poolSize: 2,
        });
        const again = await createBroker({ db: revived, logger: silentLogger() });
        const seen: BrokerRecord[] = [];
        const consumer = await again.subscribe(
          { groupId: uniqueName('check'), topics: [topic], fromBeginning: true },
          async (record) => {
            seen.push(record);
          },
        );
        // The consumer at the log's end, every partition read and committed: the log's
        // length is then the number of records it holds.
        await waitFor(
          'the consumer at the end of the log',
          () =>
            seen.length >= 1 &&
            consumer.assignments().length > 0 &&
            consumer.assignments().every((a) => a.committedOffset === a.endOffset),
        );
        const held = consumer.assignments().reduce((sum, a) => sum + a.endOffset, 0);
        await consumer.stop();
        assert.equal(held, 1, 'the log holds one record');
        await again.close();
        await revived.close();
        assert.deepEqual(
          seen.map((r) => r.key),
          [before.internId],
        );
      } finally {
        await controlPlane.close();
        await submission.close();
      }
    });
  },
);

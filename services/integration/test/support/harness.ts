/**
 * An in-process integration platform for HTTP tests: the control plane and the submission
 * service on one migrated database, over a real broker driver from the conformance
 * helpers. With the PGlite driver the app shares the broker's PGlite (as `npm start`
 * does) unless `separateAppDb` asks for its own; the other drivers get a fresh
 * PostgreSQL database. `breakBroker()` takes the broker down for 503 tests (it needs a
 * separate app database to keep answering).
 */
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import { createTestDatabase } from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import type { Broker, BrokerRecord, Consumer } from '../../src/broker/broker.js';
import type { ContractDefinition } from '../../src/contracts/contract.js';
import { buildControlPlaneApp } from '../../src/control-plane/app.js';
import { migrateIntegration } from '../../src/migrations.js';
import { buildSubmissionApp, type SubmissionOptions } from '../../src/submission/app.js';
import {
  BROKER_DRIVERS,
  silentLogger,
  uniqueName,
  type BrokerDriverCase,
} from '../helpers/broker-drivers.js';

export interface Harness {
  db: SqlDatabase;
  broker: Broker;
  /** The SQL-log broker's database (a fresh PGlite for JetStream). */
  brokerDb: SqlDatabase;
  controlPlane: FastifyInstance;
  submission: FastifyInstance;
  register(contract: ContractDefinition): Promise<void>;
  /** Collects every record of `topics` from the beginning with a fresh consumer group. */
  collect(topics: string[]): Promise<{ records: BrokerRecord[]; consumer: Consumer }>;
  breakBroker(): Promise<void>;
  close(): Promise<void>;
}

export const PGLITE_DRIVER = BROKER_DRIVERS.find((d) => d.name === 'sql-log-pglite')!;

export async function openHarness(
  driver: BrokerDriverCase = PGLITE_DRIVER,
  options: { separateAppDb?: boolean; submission?: Partial<SubmissionOptions> } = {},
): Promise<Harness> {
  const open = await driver.open();
  const pglite = driver.name === 'sql-log-pglite';
  const testDb = pglite ? undefined : await createTestDatabase('integration');
  const db =
    pglite && !options.separateAppDb
      ? open.db
      : await createSqlDatabase({ url: testDb?.url, dataDir: 'memory://', poolSize: 4 });
  await migrateIntegration(db);
  const logger = silentLogger();
  const controlPlane = await buildControlPlaneApp({
    db,
    broker: open.broker,
    logger,
    seedInternsAttachments: false,
  });
  const submission = await buildSubmissionApp({
    db,
    broker: open.broker,
    logger,
    corsOrigins: ['http://allowed.example'],
    ...options.submission,
  });
  const consumers: Consumer[] = [];
  let closed = false;
  return {
    db,
    broker: open.broker,
    brokerDb: open.db,
    controlPlane,
    submission,
    async register(contract) {
      const response = await controlPlane.inject({
        method: 'POST',
        url: '/contracts',
        payload: contract,
      });
      if (response.statusCode !== 201)
        throw new Error(`register failed: ${response.statusCode} ${response.body}`);
    },
    async collect(topics) {
      const records: BrokerRecord[] = [];
      const consumer = await open.broker.subscribe(
        { groupId: uniqueName('test-collector'), topics, fromBeginning: true },
        async (record) => {
          records.push(record);
        },
      );
      consumers.push(consumer);
      return { records, consumer };
    },
    async breakBroker() {
      for (const consumer of consumers.splice(0)) await consumer.stop();
      await open.broker.close();
      await open.db.close().catch(() => undefined);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const consumer of consumers.splice(0)) await consumer.stop().catch(() => undefined);
      await controlPlane.close();
      await submission.close();
      await open.cleanup().catch(() => undefined);
      await db.close().catch(() => undefined);
      await testDb?.drop();
    },
  };
}

export const json = <T = Record<string, unknown>>(response: { body: string }): T =>
  JSON.parse(response.body) as T;

/**
 * Issue 21 item 4 on PostgreSQL behind a TCP proxy: while the database is unreachable a
 * submission is a 503 whose detail names the database and that carries Retry-After (no
 * 500, no 202), /health says the database is down, and once the connection is back the
 * service accepts again by itself. The SQL-log broker sits on the same database, as in
 * `DATABASE_URL=… npm start`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import {
  createTestDatabase,
  postgresUrlForTests,
  skipReason,
  startTcpProxy,
  type TcpProxy,
  type TestDatabase,
} from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { createBroker, type Broker } from '../../src/broker/broker.js';
import { buildControlPlaneApp } from '../../src/control-plane/app.js';
import { migrateIntegration } from '../../src/migrations.js';
import { buildSubmissionApp } from '../../src/submission/app.js';
import { RETRY_AFTER_SECONDS } from '../../src/dependency-errors.js';
import { silentLogger, waitFor } from '../helpers/broker-drivers.js';
import { internPayload, internsLike } from '../support/contracts.js';

const postgres = await postgresUrlForTests();
/** The PostgreSQL pool's connect timeout (core's default): a reconnect happens within it. */
const CONNECT_TIMEOUT_MS = 5000;

describe(
  'database down: 503 naming it, with Retry-After, and recovery (PostgreSQL through a proxy)',
  { skip: skipReason('PostgreSQL on 127.0.0.1:5432', Boolean(postgres)) },
  () => {
    let testDb: TestDatabase;
    let proxy: TcpProxy;
    let db: SqlDatabase;
    let broker: Broker;
    let submission: FastifyInstance;
    let controlPlane: FastifyInstance;
    const contract = internsLike();
    const post = () =>
      submission.inject({
        method: 'POST',
        url: `/contracts/${contract.contractId}/records`,
        payload: internPayload(),
      });

    before(async () => {
      testDb = await createTestDatabase('integration_db_down');
      const url = new URL(testDb.url);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      url.port = String(proxy.port);
      db = await createSqlDatabase({
        url: url.toString(),
        dataDir: 'unused',
        poolSize: 4,
      });
      await migrateIntegration(db);
      const logger = silentLogger();
      broker = await createBroker({ db, logger });
      controlPlane = await buildControlPlaneApp({
        db,
        broker,
        logger,
        seedInternsAttachments: false,
      });
      submission = await buildSubmissionApp({ db, broker, logger });
      const registered = await controlPlane.inject({
        method: 'POST',
        url: '/contracts',
        payload: contract,
      });
      assert.equal(registered.statusCode, 201, registered.body);
    });
    after(async () => {
      proxy?.restore();
      await submission?.close();
      await controlPlane?.close();
      await broker?.close();
      await db?.close().catch(() => undefined);
      await proxy?.close();
      await testDb?.drop();
    });

    it('answers 503 with the dependency named and Retry-After, then recovers', async () => {
      assert.equal((await post()).statusCode, 202);
      proxy.cut();
      const refused = await post();
      assert.equal(refused.statusCode, 503, refused.body);
      assert.match(refused.json().detail, /unavailable/);
      assert.match(refused.json().detail, /database|broker/);
      assert.equal(refused.headers['retry-after'], String(RETRY_AFTER_SECONDS));
      const health = await submission.inject({ url: '/health' });
      assert.equal(health.statusCode, 503);
      assert.equal(health.json().dependencies.database.status, 'down');

      proxy.restore();
      // The pool opens a new connection on the next request (within its connect timeout).
      await waitFor(
        'a 202 after the database came back',
        async () => (await post()).statusCode === 202,
        3 * CONNECT_TIMEOUT_MS,
        100,
      );
      assert.equal((await submission.inject({ url: '/health' })).statusCode, 200);
    });
  },
);

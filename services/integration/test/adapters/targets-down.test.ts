/**
 * Targets that go down under a running adapter: the PostgreSQL database of the
 * relational adapter (connections killed, then the database dropped), a CSV path that
 * cannot be written, a webhook nobody listens on. A short outage is retried and then
 * written; a lasting one ends in RETRY_EXHAUSTED with every attempt counted, and the
 * adapter moves on to the next message.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import {
  createTestDatabase,
  postgresUrlForTests,
  skipReason,
  type TestDatabase,
} from '@platform/testing';
import { buildCsvAdapter } from '../../src/adapters/csv/build-csv-adapter.js';
import { buildRelationalAdapter } from '../../src/adapters/relational/build-relational-adapter.js';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { buildWebhookAdapter } from '../../src/adapters/webhook/build-webhook-adapter.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import { startHarness, type Harness } from '../helpers/adapter-harness.js';
import { internCreated, INTERNS } from '../helpers/records.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

const pglite = BROKER_DRIVERS.find((d) => d.name === 'sql-log-pglite')!;
const postgresUrl = await postgresUrlForTests();

describe('targets down', () => {
  let harness: Harness;
  const adapters: Adapter[] = [];
  const dir = { path: '' };

  before(async () => {
    harness = await startHarness(pglite);
    dir.path = await mkdtemp(join(tmpdir(), 'targets-down-'));
  });
  after(async () => {
    for (const adapter of adapters) await adapter.stop();
    await harness?.cleanup();
    await rm(dir.path, { recursive: true, force: true });
  });

  describe(
    'relational on PostgreSQL',
    { skip: skipReason('PostgreSQL (database-down tests)', Boolean(postgresUrl)) },
    () => {
      let testDb: TestDatabase;
      let db: SqlDatabase;
      let adapter: Adapter;
      before(async () => {
        testDb = await createTestDatabase('down');
        db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused', poolSize: 2 });
        harness.controlPlane.attach(INTERNS, 'relational', { mode: 'shaped', table: 'interns' });
        adapter = await buildRelationalAdapter({
          ...harness.adapterDeps({
            retry: { maxAttempts: 3, initialBackoffMs: 200, maxBackoffMs: 400 },
          }),
          db,
        });
        adapters.push(adapter);
        await adapter.start();
      });
      after(async () => {
        await adapter.stop();
        await db.close().catch(() => undefined);
        await testDb.drop().catch(() => undefined);
      });

      it('retries after its connections are killed and writes the record', async () => {
        const warm = internCreated(uniqueName('warm'));
        await harness.publish(warm);
        await waitFor(
          'warm row',
          async () =>
            (await db.query('SELECT 1 FROM interns WHERE record_id = $1', [warm.recordId]))
              .rowCount === 1,
        );
        const admin = new pg.Client({ connectionString: postgresUrl });
        await admin.connect();
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [testDb.name],
        );
        await admin.end();
        const created = internCreated(uniqueName('after-kill'));
        await harness.publish(created);
        await waitFor(
          'row after reconnect',
          async () =>
            (
              await db
                .query('SELECT 1 FROM interns WHERE record_id = $1', [created.recordId])
                .catch(() => ({ rowCount: 0 }))
            ).rowCount === 1,
        );
        assert.equal(harness.deadLetters.filter((d) => d.traceId === created.traceId).length, 0);
      });

      it('dead-letters RETRY_EXHAUSTED once the database is gone', async () => {
        await testDb.drop();
        const created = internCreated(uniqueName('db-gone'));
        await harness.publish(created);
        await waitFor(
          'dead letter',
          () => harness.deadLetters.some((d) => d.traceId === created.traceId),
          15_000,
        );
        const letter = harness.deadLetters.find((d) => d.traceId === created.traceId)!;
        assert.equal(letter.errorType, 'RETRY_EXHAUSTED');
        assert.equal(letter.attemptCount, 3);
        assert.equal(letter.failedAdapter, 'adapter.relational');
        assert.deepEqual(letter.originalPayload, created);
      });
    },
  );

  it('csv: an unwritable path is retried, then written once it is fixed; a lasting one is RETRY_EXHAUSTED', async () => {
    const blocker = join(dir.path, 'blocked');
    await writeFile(blocker, 'a file where a folder should be');
    const attachment = harness.controlPlane.attach(INTERNS, 'csv', { path: 'blocked/interns.csv' });
    const adapter = await buildCsvAdapter({
      ...harness.adapterDeps({
        retry: { maxAttempts: 3, initialBackoffMs: 300, maxBackoffMs: 300 },
      }),
      baseDir: dir.path,
    });
    adapters.push(adapter);
    await adapter.start();
    const lost = internCreated(uniqueName('lost'));
    await harness.publish(lost);
    await waitFor(
      'dead letter',
      () =>
        harness.deadLetters.some(
          (d) => d.traceId === lost.traceId && d.failedAdapter === 'adapter.csv',
        ),
      15_000,
    );
    const letter = harness.deadLetters.find(
      (d) => d.traceId === lost.traceId && d.failedAdapter === 'adapter.csv',
    )!;
    assert.equal(letter.errorType, 'RETRY_EXHAUSTED');
    assert.equal(letter.attemptCount, 3);
    assert.match(letter.errorMessage, /ENOTDIR|EEXIST/);

    // Retries so far, from the adapter's own metrics: the path is fixed only once the
    // next record has failed at least once, so the test shows a retry, not a first try.
    const retries = async () => {
      const { body } = await adapter.app.inject({ url: '/metrics' });
      return [...body.matchAll(/^integration_adapter_retries_total\{[^}]*\} (\d+)$/gm)].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
    };
    const retriedBefore = await retries();
    const saved = internCreated(uniqueName('saved'));
    await harness.publish(saved);
    await waitFor('its first attempt to fail', async () => (await retries()) > retriedBefore);
    await rm(blocker);
    await waitFor(
      'line',
      async () =>
        (await readFile(join(dir.path, 'blocked', 'interns.csv'), 'utf8').catch(() => '')).includes(
          saved.recordId,
        ),
      15_000,
    );
    assert.equal(
      harness.deadLetters.filter(
        (d) => d.traceId === saved.traceId && d.failedAdapter === 'adapter.csv',
      ).length,
      0,
    );
    attachment.enabled = false;
  });

  it('webhook: 503 until the attempts run out is RETRY_EXHAUSTED; a refused connection too', async () => {
    const receiver = await startWebhookReceiver();
    receiver.respond = () => 503;
    harness.controlPlane.attach(INTERNS, 'webhook', {
      url: `${receiver.url}/hook`,
      authType: 'bearer',
      token: 't',
    });
    harness.controlPlane.attach(INTERNS, 'webhook', {
      url: 'http://127.0.0.1:1/nobody',
      authType: 'bearer',
      token: 't',
      connectTimeoutMs: 500,
    });
    const adapter = await buildWebhookAdapter({
      ...harness.adapterDeps(),
      stateDir: join(dir.path, 'webhook'),
      allowedOutbound: ['127.0.0.1'],
    });
    adapters.push(adapter);
    await adapter.start();
    const created = internCreated(uniqueName('hook'));
    await harness.publish(created);
    await waitFor(
      'two dead letters',
      () =>
        harness.deadLetters.filter(
          (d) => d.traceId === created.traceId && d.failedAdapter === 'adapter.webhook',
        ).length === 2,
      15_000,
    );
    const letters = harness.deadLetters.filter(
      (d) => d.traceId === created.traceId && d.failedAdapter === 'adapter.webhook',
    );
    assert.ok(letters.every((d) => d.errorType === 'RETRY_EXHAUSTED' && d.attemptCount === 3));
    assert.ok(letters.some((d) => /ECONNREFUSED/.test(d.errorMessage)));
    assert.equal(
      receiver.deliveries.filter((d) => d.headers['idempotency-key'] === created.recordId).length,
      3,
    );
    await receiver.close();
  });

  it('webhook: a receiver down for longer than the attempts holds the consumer (outage budget), then everything is delivered, nothing dead-lettered', async () => {
    const receiver = await startWebhookReceiver();
    let down = true;
    receiver.respond = () => (down ? 503 : 204);
    for (const adapter of adapters.splice(0)) await adapter.stop(); // one member of the group: this test's
    for (const attachment of harness.controlPlane.attachments) attachment.enabled = false;
    harness.controlPlane.attach(INTERNS, 'webhook', {
      url: `${receiver.url}/outage`,
      authType: 'bearer',
      token: 't',
    });
    const retry = {
      maxAttempts: 2,
      initialBackoffMs: 20,
      maxBackoffMs: 50,
      outageBudgetMs: 30_000,
    };
    const adapter = await buildWebhookAdapter({
      ...harness.adapterDeps({ retry }),
      stateDir: join(dir.path, 'webhook-outage'),
      allowedOutbound: ['127.0.0.1'],
    });
    adapters.push(adapter);
    await adapter.start();
    const events = [
      internCreated(uniqueName('o1')),
      internCreated(uniqueName('o2')),
      internCreated(uniqueName('o3')),
    ];
    for (const event of events) await harness.publish(event);
    const posts = (id: string) =>
      receiver.deliveries.filter((d) => d.headers['idempotency-key'] === id).length;
    // Held well past maxAttempts (2) without a dead letter.
    await waitFor(
      'attempts past maxAttempts',
      () => events.some((e) => posts(e.recordId) >= 2 * retry.maxAttempts),
      15_000,
    );
    assert.equal(
      harness.deadLetters.filter((d) => events.some((e) => e.traceId === d.traceId)).length,
      0,
      'nothing dead-lettered during the outage',
    );
    down = false;
    await waitFor(
      'every event delivered',
      () => {
        const delivered = new Set(receiver.deliveries.map((d) => d.headers['idempotency-key']));
        return events.every((e) => delivered.has(e.recordId)) && adapter.runtime.status().lag === 0;
      },
      15_000,
    );
    assert.equal(
      harness.deadLetters.filter((d) => events.some((e) => e.traceId === d.traceId)).length,
      0,
    );
    await receiver.close();
  });
});

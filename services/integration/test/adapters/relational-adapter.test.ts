/**
 * The relational adapter against every row of the outcome table (spec section 3), on
 * the SQL log over PGlite (one shared database, as in `npm start`) and on JetStream with
 * a PostgreSQL target database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import {
  createTestDatabase,
  postgresUrlForTests,
  skipReason,
  type TestDatabase,
} from '@platform/testing';
import { buildRelationalAdapter } from '../../src/adapters/relational/build-relational-adapter.js';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import { startHarness, type Harness } from '../helpers/adapter-harness.js';
import {
  createOnlyContract,
  envelope,
  internCreated,
  internDeleted,
  internUpdated,
  INTERNS,
} from '../helpers/records.js';

const SETUPS = [
  { name: 'SQL log on PGlite, shared database', driver: 'sql-log-pglite', postgresTarget: false },
  { name: 'JetStream, PostgreSQL target', driver: 'jetstream', postgresTarget: true },
];

for (const setup of SETUPS) {
  const driver = BROKER_DRIVERS.find((d) => d.name === setup.driver)!;
  const missing =
    (await driver.missing()) ??
    (setup.postgresTarget && !(await postgresUrlForTests()) ? 'PostgreSQL' : undefined);
  describe(
    `relational adapter: ${setup.name}`,
    { skip: skipReason(`${missing} (relational adapter tests)`, !missing) },
    () => {
      let harness: Harness;
      let adapter: Adapter;
      let db: SqlDatabase;
      let testDb: TestDatabase | undefined;
      const products = createOnlyContract(uniqueName('products'));
      const dormant = createOnlyContract(uniqueName('dormant'));
      const count = async (sql: string, params: unknown[]) =>
        Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
      const drained = () =>
        waitFor('adapter lag 0', () => {
          const status = adapter.runtime.status();
          return status.assignments.length > 0 && status.lag === 0;
        });

      before(async () => {
        harness = await startHarness(driver, [
          `${products.contractId}.created`,
          `${dormant.contractId}.created`,
        ]);
        if (setup.postgresTarget) {
          testDb = await createTestDatabase('relational');
          db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused', poolSize: 4 });
        } else db = harness.db;
        harness.controlPlane.attach(INTERNS, 'relational', {
          mode: 'shaped',
          table: 'interns',
          tombstone: 'delete',
        });
        harness.controlPlane.attach(INTERNS, 'relational', {
          mode: 'generic',
          table: 'records',
          tombstone: 'soft-delete',
        });
        harness.controlPlane.attach(products, 'relational', { mode: 'generic', table: 'records' });
        harness.controlPlane.attach(
          dormant,
          'relational',
          { mode: 'generic', table: 'records' },
          false,
        );
        adapter = await buildRelationalAdapter({ ...harness.adapterDeps(), db });
        await adapter.start();
      });
      after(async () => {
        await adapter?.stop();
        await harness?.cleanup();
        if (testDb) {
          await db.close();
          await testDb.drop();
        }
      });

      it('registers its type with a described config schema and its own consumer group', () => {
        const registration = harness.controlPlane.registrations.at(-1)!;
        assert.equal(registration.type, 'relational');
        assert.equal(registration.consumerGroup, 'adapter.relational');
        const properties = (
          registration.configSchema as { properties: Record<string, { description?: string }> }
        ).properties;
        for (const [name, property] of Object.entries(properties))
          assert.ok(property.description, `${name} has a description`);
      });

      it('writes a create to the shaped table, the generic table and the audit log, then commits', async () => {
        const created = internCreated(uniqueName('i'));
        await harness.publish(created);
        await waitFor(
          'shaped row',
          async () =>
            (await count('SELECT count(*) AS n FROM interns WHERE record_id = $1', [
              created.recordId,
            ])) === 1,
        );
        await waitFor(
          'generic row',
          async () =>
            (await count('SELECT count(*) AS n FROM records WHERE record_id = $1', [
              created.recordId,
            ])) === 1,
        );
        const row = (
          await db.query<Record<string, unknown>>(
            'SELECT intern_id, last_name, start_date::text AS start_date, status, created_at FROM interns WHERE record_id = $1',
            [created.recordId],
          )
        ).rows[0]!;
        assert.equal(row.intern_id, created.naturalKey);
        assert.equal(row.last_name, 'Lovelace, Countess');
        assert.equal(row.start_date, '2026-01-05');
        assert.equal(new Date(row.created_at as string).toISOString(), created.occurredAt);
        const audit = await db.query<{ trace_id: string; contract_id: string }>(
          'SELECT trace_id, contract_id FROM audit_log WHERE record_id = $1',
          [created.recordId],
        );
        assert.equal(audit.rows.length, 2, 'one audit row per attachment');
        assert.ok(
          audit.rows.every((r) => r.trace_id === created.traceId && r.contract_id === 'interns'),
        );
        await drained();
        const listed = await adapter.app.inject({ method: 'GET', url: '/interns' });
        assert.equal(listed.statusCode, 200);
        assert.ok(
          listed
            .json()
            .interns.some((i: { record_id: string }) => i.record_id === created.recordId),
        );
        const metrics = (await adapter.app.inject({ method: 'GET', url: '/metrics' })).body;
        assert.match(
          metrics,
          /integration_adapter_records_total\{[^}]*contract_id="interns"[^}]*outcome="written"[^}]*\} [1-9]/,
        );
        assert.doesNotMatch(metrics, new RegExp(created.recordId), 'no record id in metrics');
      });

      it('writes a redelivered event once (idempotency gate)', async () => {
        const created = internCreated(uniqueName('dup'));
        const duplicates = async () => {
          const metrics = (await adapter.app.inject({ method: 'GET', url: '/metrics' })).body;
          return Number(
            /integration_adapter_records_total\{[^}]*contract_id="interns"[^}]*outcome="duplicate"[^}]*\} (\d+)/.exec(
              metrics,
            )?.[1] ?? 0,
          );
        };
        const before = await duplicates();
        await harness.publish(created);
        await harness.publish(created);
        await waitFor(
          'both deliveries handled by both attachments',
          async () => (await duplicates()) >= before + 2,
        );
        assert.equal(
          await count('SELECT count(*) AS n FROM interns WHERE intern_id = $1', [
            created.naturalKey,
          ]),
          1,
        );
        assert.equal(
          await count('SELECT count(*) AS n FROM records WHERE natural_key = $1', [
            created.naturalKey,
          ]),
          1,
        );
        assert.equal(
          await count('SELECT count(*) AS n FROM audit_log WHERE record_id = $1', [
            created.recordId,
          ]),
          2,
          'one per attachment, not per delivery',
        );
      });

      it('upserts updates on the natural key, ignores older ones, deletes and soft-deletes tombstones', async () => {
        const id = uniqueName('life');
        const created = internCreated(id);
        const newer = internUpdated(id, { status: 'COMPLETED', mentor: 'Menabrea' });
        const older = {
          ...internUpdated(id, { status: 'WITHDRAWN' }),
          occurredAt: created.occurredAt,
        };
        await harness.publish(created);
        await harness.publish(newer);
        await harness.publish(older);
        await waitFor(
          'three audited events per attachment',
          async () =>
            (await count('SELECT count(*) AS n FROM audit_log WHERE natural_key = $1', [id])) === 6,
        );
        await waitFor(
          'update applied',
          async () =>
            (await count(
              "SELECT count(*) AS n FROM interns WHERE intern_id = $1 AND status = 'COMPLETED'",
              [id],
            )) === 1,
        );
        const generic = (
          await db.query<{ payload: { status: string }; record_id: string }>(
            "SELECT payload, record_id FROM records WHERE contract_id = 'interns' AND natural_key = $1",
            [id],
          )
        ).rows[0]!;
        assert.equal(
          generic.payload.status,
          'COMPLETED',
          'the older update did not overwrite the newer',
        );
        assert.equal(generic.record_id, newer.recordId);
        const audit = await db.query<{ applied: boolean; record_id: string }>(
          'SELECT applied, record_id FROM audit_log WHERE natural_key = $1 ORDER BY audit_id',
          [id],
        );
        assert.equal(audit.rows.length, 6, 'every event is in the audit log, applied or not');
        assert.equal(
          audit.rows
            .filter((r) => r.record_id === older.recordId)
            .every((r) => r.applied === false),
          true,
        );
        await harness.publish(internDeleted(id));
        await waitFor(
          'hard delete',
          async () =>
            (await count('SELECT count(*) AS n FROM interns WHERE intern_id = $1', [id])) === 0,
        );
        await waitFor(
          'soft delete',
          async () =>
            (await count(
              "SELECT count(*) AS n FROM records WHERE natural_key = $1 AND contract_id = 'interns' AND deleted_at IS NOT NULL",
              [id],
            )) === 1,
        );
        await assert.rejects(
          db.query('DELETE FROM audit_log WHERE natural_key = $1', [id]),
          /append-only/,
        );
      });

      it('orders a key by revision: a re-create after a delete is applied, a late update of a deleted key is not', async () => {
        const again = uniqueName('again');
        await harness.publish({ ...internCreated(again), revision: 1 });
        await harness.publish({ ...internDeleted(again), revision: 2 });
        await harness.publish({ ...internCreated(again, { firstName: 'Augusta' }), revision: 3 });
        const late = uniqueName('late');
        await harness.publish({ ...internCreated(late), revision: 1 });
        await harness.publish({ ...internDeleted(late), revision: 3 });
        await harness.publish({ ...internUpdated(late, { status: 'COMPLETED' }), revision: 2 });
        await waitFor(
          'every event audited by both attachments',
          async () =>
            (await count(
              'SELECT count(*) AS n FROM audit_log WHERE natural_key = ANY($1::text[])',
              [[again, late]],
            )) === 12,
        );
        assert.equal(
          await count(
            "SELECT count(*) AS n FROM interns WHERE intern_id = $1 AND first_name = 'Augusta' AND deleted_at IS NULL",
            [again],
          ),
          1,
          'hard delete mode: re-created',
        );
        assert.equal(
          await count(
            "SELECT count(*) AS n FROM records WHERE natural_key = $1 AND payload->>'firstName' = 'Augusta' AND deleted_at IS NULL",
            [again],
          ),
          1,
          'soft delete mode: re-created',
        );
        assert.equal(
          await count('SELECT count(*) AS n FROM interns WHERE intern_id = $1', [late]),
          0,
          'the late update did not bring the row back',
        );
        // Soft-delete mode: deleted, or never written when the tombstone came first (topics are consumed side by side).
        assert.equal(
          await count(
            'SELECT count(*) AS n FROM records WHERE natural_key = $1 AND deleted_at IS NULL',
            [late],
          ),
          0,
          'not live again',
        );
      });

      it('skips and commits records of contracts without an enabled attachment; other contracts unaffected', async () => {
        const stranger = envelope(uniqueName('nobody'), 'thing.created', 'k1', { a: 1 });
        await harness.broker.ensureTopic({ name: `${stranger.contractId}.created`, partitions: 1 });
        const disabled = envelope(dormant.contractId, 'product.created', 'sku-d', {
          sku: 'sku-d',
          name: 'D',
        });
        const product = envelope(products.contractId, 'product.created', 'sku-1', {
          sku: 'sku-1',
          name: 'Widget',
        });
        await harness.publish(disabled);
        await harness.publish(product);
        await waitFor(
          'product row',
          async () =>
            (await count('SELECT count(*) AS n FROM records WHERE record_id = $1', [
              product.recordId,
            ])) === 1,
        );
        await drained();
        assert.equal(
          await count('SELECT count(*) AS n FROM records WHERE contract_id = $1', [
            dormant.contractId,
          ]),
          0,
          'disabled attachment writes nothing',
        );
        const status = (await adapter.app.inject({ method: 'GET', url: '/admin/status' })).json();
        assert.equal(status.lag, 0, 'skipped records are committed');
        const indexes = await db.query<{ indexdef: string }>(
          "SELECT indexdef FROM pg_indexes WHERE tablename = 'records'",
        );
        assert.ok(
          indexes.rows.some(
            (r) =>
              r.indexdef.includes("payload ->> 'sku'") && r.indexdef.includes(products.contractId),
          ),
          'per-contract expression index on the queryable field',
        );
      });

      it('dead-letters a poison message and still writes the next good one', async () => {
        const good = internCreated(uniqueName('after-poison'));
        await harness.publishRaw('interns.created', good.naturalKey, '{not json');
        const badDate = internCreated(uniqueName('bad-date'), { startDate: 'not-a-date' });
        await harness.publish(badDate);
        await harness.publish(good);
        await waitFor(
          'good row',
          async () =>
            (await count('SELECT count(*) AS n FROM interns WHERE record_id = $1', [
              good.recordId,
            ])) === 1,
        );
        await waitFor(
          'dead letters',
          () =>
            harness.deadLetters.some((d) => d.errorType === 'SCHEMA_VIOLATION') &&
            harness.deadLetters.some((d) => d.traceId === badDate.traceId),
        );
        const poison = harness.deadLetters.find(
          (d) => d.errorType === 'SCHEMA_VIOLATION' && d.originalKey === good.naturalKey,
        )!;
        assert.equal(poison.failedAdapter, 'adapter.relational');
        assert.equal(poison.originalTopic, 'interns.created');
        assert.equal(poison.originalPayload, '{not json');
        assert.equal(poison.attemptCount, 1);
        assert.equal(poison.replayed, false);
        assert.equal(poison.replayedAt, null);
        assert.ok(!Number.isNaN(Date.parse(poison.quarantinedAt)));
        const unmappable = harness.deadLetters.find((d) => d.traceId === badDate.traceId)!;
        assert.equal(unmappable.errorType, 'UNMAPPABLE_DATA');
        assert.equal(unmappable.contractId, 'interns');
        assert.equal(unmappable.attemptCount, 1, 'non-retriable: no retries');
        assert.deepEqual(unmappable.originalPayload, badDate);
      });

      it('skips records published between attaching and the adapter learning of it, writes those after it', async () => {
        const late = createOnlyContract(uniqueName('late'));
        await harness.broker.ensureTopic({ name: `${late.contractId}.created`, partitions: 1 });
        // The control plane cannot be reached: the adapter cannot learn of the attachment yet.
        harness.controlPlane.unavailable = true;
        const before = envelope(late.contractId, 'product.created', 'early', {
          sku: 'early',
          name: 'E',
        });
        const attachment = harness.controlPlane.attach(late, 'relational', {
          mode: 'generic',
          table: 'records',
        });
        await harness.publish(before);
        harness.controlPlane.unavailable = false;
        await waitFor('the adapter learns of the attachment', () =>
          adapter.runtime
            .status()
            .attachments.some((a) => a.attachmentId === attachment.attachmentId),
        );
        const afterLearning = envelope(late.contractId, 'product.created', 'later', {
          sku: 'later',
          name: 'L',
        });
        await harness.publish(afterLearning);
        await waitFor(
          'after-learning row',
          async () =>
            (await count('SELECT count(*) AS n FROM records WHERE record_id = $1', [
              afterLearning.recordId,
            ])) === 1,
        );
        assert.equal(
          await count('SELECT count(*) AS n FROM records WHERE record_id = $1', [before.recordId]),
          0,
          'not backfilled',
        );
      });

      it('keeps writing to the shaped table when a later contract version adds an optional field', async () => {
        const v2 = {
          ...INTERNS,
          schemaVersion: 2,
          fields: [...INTERNS.fields, { name: 'nickname', type: 'string', required: false }],
        };
        for (const attachment of harness.controlPlane.attachments.filter(
          (a) => a.contractId === 'interns',
        ))
          attachment.contract = v2;
        await adapter.runtime.refresh();
        const newer = { ...internCreated(uniqueName('v2'), { nickname: 'Ada' }), schemaVersion: 2 };
        const older = internCreated(uniqueName('v1'));
        await harness.publish(newer);
        await harness.publish(older);
        await waitFor(
          'both rows',
          async () =>
            (await count('SELECT count(*) AS n FROM interns WHERE record_id = ANY($1::uuid[])', [
              [newer.recordId, older.recordId],
            ])) === 2,
        );
        await waitFor(
          'generic row',
          async () =>
            (await count('SELECT count(*) AS n FROM records WHERE record_id = $1', [
              newer.recordId,
            ])) === 1,
        );
        const generic = (
          await db.query<{ payload: Record<string, unknown> }>(
            'SELECT payload FROM records WHERE record_id = $1',
            [newer.recordId],
          )
        ).rows[0]!;
        assert.equal(generic.payload.nickname, 'Ada', 'the generic table keeps the new field');
      });

      it('pauses and resumes through the admin API; offsets hold while paused', async () => {
        const paused = await adapter.app.inject({ method: 'POST', url: '/admin/pause' });
        assert.equal(paused.json().state, 'paused');
        const held = internCreated(uniqueName('held'));
        await harness.publish(held);
        // The paused consumer has seen the record arrive (it is lag) and not taken it.
        let status: { lag: number; paused: boolean } = { lag: 0, paused: false };
        await waitFor('the held record shows as lag', async () => {
          status = (await adapter.app.inject({ method: 'GET', url: '/admin/status' })).json();
          return status.lag >= 1;
        });
        assert.equal(status.paused, true);
        assert.equal(
          await count('SELECT count(*) AS n FROM interns WHERE record_id = $1', [held.recordId]),
          0,
        );
        assert.equal(
          (await adapter.app.inject({ method: 'POST', url: '/admin/resume' })).json().state,
          'running',
        );
        await waitFor(
          'backlog written',
          async () =>
            (await count('SELECT count(*) AS n FROM interns WHERE record_id = $1', [
              held.recordId,
            ])) === 1,
        );
      });
    },
  );
}

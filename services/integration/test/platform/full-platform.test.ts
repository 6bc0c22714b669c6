/**
 * The whole platform in one process (the `npm start` wiring, `startPlatform`) on each
 * broker driver: SQL log on PGlite (the embedded default), the same with PGlite on a thread
 * of its own (`PGLITE_THREAD`), and JetStream with PostgreSQL.
 * Create, update and delete reach the relational table and the csv file; a poison
 * message is dead-lettered by both adapters, shows up in the dead-letter read API with
 * its adapter and error type, and the next good record is still written. Every call is a
 * client's: @platform/client against the running services (issue 22 item 4).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  controlPlaneClient,
  csvAdapterClient,
  relationalAdapterClient,
  submissionClient,
} from '@platform/client';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import { createTestDatabase, skipReason, type TestDatabase } from '@platform/testing';
import { startPlatform, type RunningPlatform } from '../../src/platform.js';
import { driversToRun, silentLogger, waitFor, type OpenBroker } from '../helpers/broker-drivers.js';
import { internPayload } from '../support/contracts.js';
import { platformEnv } from '../support/platform-env.js';

const RUNS = await driversToRun(
  ['sql-log-pglite', 'sql-log-pglite-thread', 'jetstream'],
  (name) => name === 'jetstream',
);

for (const { driver, missing } of RUNS) {
  const needsPostgres = driver.name === 'jetstream';
  describe(
    `whole platform in one process: ${driver.name}${needsPostgres ? ' + PostgreSQL' : ''}`,
    { skip: skipReason(`${missing} (platform on ${driver.name})`, !missing) },
    () => {
      let open: OpenBroker;
      let testDb: TestDatabase | undefined;
      let db: SqlDatabase;
      let platform: RunningPlatform;
      let dataDir: string;
      const clients = () => ({
        submission: submissionClient({ baseUrl: platform.urls.submission! }),
        relational: relationalAdapterClient({ baseUrl: platform.urls.relational! }),
        csv: csvAdapterClient({ baseUrl: platform.urls.csv! }),
        controlPlane: controlPlaneClient({ baseUrl: platform.urls['control-plane']! }),
      });
      const relationalRows = async () => {
        const { data, response } = await clients().relational.GET('/interns');
        assert.equal(response.status, 200);
        return data!.interns as Array<Record<string, unknown>>;
      };
      const record = (internId: string) => ({
        params: { path: { contractId: 'interns', naturalKey: internId } },
      });
      const csvText = async () =>
        readFile(join(dataDir, 'integration', 'csv', 'interns.csv'), 'utf8').catch(() => '');

      before(async () => {
        dataDir = await mkdtemp(join(tmpdir(), 'integration-platform-'));
        open = await driver.open();
        if (needsPostgres) {
          testDb = await createTestDatabase('integration_platform');
          db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused' });
        } else {
          db = open.db;
        }
        platform = await startPlatform({
          env: platformEnv({
            DATA_DIR: dataDir,
            RELATIONAL_RETRY_BACKOFF_MS: '20',
            CSV_RETRY_BACKOFF_MS: '20',
          }),
          logger: silentLogger(),
          db,
          broker: open.broker,
        });
        await waitFor(
          'both adapters to hold the seeded interns attachments',
          async () => {
            const { relational, csv } = clients();
            for (const { data } of [
              await relational.GET('/admin/status'),
              await csv.GET('/admin/status'),
            ]) {
              if (!data?.attachments?.some((a) => a.contractId === 'interns')) return false;
            }
            return true;
          },
          30_000,
        );
      });
      after(async () => {
        await platform?.close();
        await open?.cleanup();
        if (needsPostgres) await db?.close();
        await testDb?.drop();
        await rm(dataDir, { recursive: true, force: true });
      });

      it('create, update and delete reach the relational table and the csv file', async () => {
        const payload = internPayload({ mentor: 'Grace Hopper' });
        const { submission } = clients();
        const created = await submission.POST('/contracts/{contractId}/records', {
          params: { path: { contractId: 'interns' } },
          body: payload,
        });
        assert.equal(created.response.status, 202, JSON.stringify(created.error));
        const { recordId } = created.data!;
        await waitFor(
          'the create in both targets',
          async () =>
            (await relationalRows()).some((r) => r.record_id === recordId) &&
            (await csvText()).includes(recordId),
          30_000,
        );

        const updated = await submission.PUT('/contracts/{contractId}/records/{naturalKey}', {
          ...record(String(payload.internId)),
          body: { ...payload, status: 'COMPLETED' },
        });
        assert.equal(updated.response.status, 202, JSON.stringify(updated.error));
        await waitFor(
          'the update in both targets',
          async () => {
            const row = (await relationalRows()).find((r) => r.intern_id === payload.internId);
            const line = (await csvText())
              .split('\n')
              .find((l) => l.includes(`,${payload.internId},`));
            return row?.status === 'COMPLETED' && Boolean(line?.includes(',COMPLETED,'));
          },
          30_000,
        );

        const deleted = await submission.DELETE(
          '/contracts/{contractId}/records/{naturalKey}',
          record(String(payload.internId)),
        );
        assert.equal(deleted.response.status, 202, JSON.stringify(deleted.error));
        await waitFor(
          'the delete in both targets',
          async () => {
            const gone = !(await relationalRows()).some((r) => r.intern_id === payload.internId);
            return gone && !(await csvText()).includes(`,${payload.internId},`);
          },
          30_000,
        );
        assert.equal(
          (await csvText()).split('\r\n')[0],
          'record_id,intern_id,first_name,last_name,email,college,department,mentor,start_date,status,created_at',
        );
      });

      it('dead-letters a poison message in each adapter while the next good record is written', async () => {
        await platform.broker.publish('interns.created', 'poison-1', '{"recordId": "broken');
        const good = internPayload();
        const { submission, controlPlane } = clients();
        const created = await submission.POST('/interns', { body: good });
        assert.equal(created.response.status, 202, JSON.stringify(created.error));
        const { recordId } = created.data!;
        await waitFor(
          'the good record in both targets',
          async () =>
            (await relationalRows()).some((r) => r.record_id === recordId) &&
            (await csvText()).includes(recordId),
          30_000,
        );

        type Group = { failedAdapter: string; errorType: string; count: number };
        let groups: Group[] = [];
        await waitFor(
          'two dead letters',
          async () => {
            const { data, response } = await controlPlane.GET('/dead-letters', {
              params: { query: { groupBy: 'failedAdapter,errorType', contractId: 'interns' } },
            });
            assert.equal(response.status, 200);
            groups = (data as { groups: Group[] }).groups;
            return groups.reduce((sum, g) => sum + g.count, 0) >= 2;
          },
          30_000,
        );
        assert.deepEqual(groups.map((g) => `${g.failedAdapter}:${g.errorType}:${g.count}`).sort(), [
          'adapter.csv:SCHEMA_VIOLATION:1',
          'adapter.relational:SCHEMA_VIOLATION:1',
        ]);
        const listed = await controlPlane.GET('/dead-letters', {
          params: { query: { contractId: 'interns' } },
        });
        assert.equal(listed.response.status, 200);
        const { deadLetters } = listed.data as {
          deadLetters: Array<{
            id: string;
            originalKey: string;
            originalPayload: unknown;
            originalTopic: string;
          }>;
        };
        assert.ok(
          deadLetters.every(
            (d) =>
              d.originalKey === 'poison-1' &&
              d.originalTopic === 'interns.created' &&
              d.originalPayload === '{"recordId": "broken',
          ),
        );
        const replayed = await controlPlane.POST('/dead-letters/{id}/replay', {
          params: { path: { id: deadLetters[0]!.id } },
        });
        assert.equal(replayed.response.status, 422);
      });
    },
  );
}

/**
 * `ADAPTER_THREADS=workers`: the whole platform in one process with each adapter role in a
 * worker thread of its own (own database pool and broker connection), on the SQL log on
 * PostgreSQL and on JetStream with PostgreSQL. Each role's `/health` names its thread;
 * records reach the table and the file; a graceful close stops every thread with exit
 * code 0, and what was submitted reaches each target once after a restart; a thread that
 * ends unasked is reported as a crash (the process exits 1 in `main.ts`). PGlite refuses
 * `workers`; the default is the main thread.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, createSqlDatabase, type SqlDatabase } from '@platform/core';
import { bundleEntry, createTestDatabase, skipReason, type TestDatabase } from '@platform/testing';
import { startPlatform, type RunningPlatform } from '../../src/platform.js';
import { ROLE_THREAD_ENTRY, type RoleThread } from '../../src/role-threads/role-thread-host.js';
import type { ThreadEngines } from '../../src/role-threads/role-thread-protocol.js';
import { driversToRun, silentLogger, waitFor, type OpenBroker } from '../helpers/broker-drivers.js';
import { internPayload } from '../support/contracts.js';
import { platformEnv } from '../support/platform-env.js';

const RUNS = await driversToRun(['sql-log-postgres', 'jetstream'], () => true);
// The threads start from a bundle of their module, as the chaos runs start the service:
// from the TypeScript source each of a start's three threads transformed the whole
// service under tsx again (most of this file's CPU). Core's typescript-worker test
// covers the source path.
const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const threadEntry = pathToFileURL(await bundleEntry(SERVICE_DIR, fileURLToPath(ROLE_THREAD_ENTRY)));

for (const { driver, missing } of RUNS) {
  describe(
    `adapter roles in worker threads: ${driver.name}`,
    { skip: skipReason(`${missing} (adapter threads on ${driver.name})`, !missing) },
    () => {
      let open: OpenBroker;
      let testDb: TestDatabase | undefined;
      let db: SqlDatabase;
      let engines: ThreadEngines;
      let dataDir: string;
      let platform: RunningPlatform | undefined;
      const crashes: string[] = [];

      const start = (overrides: Record<string, string> = {}) =>
        startPlatform({
          env: platformEnv({
            DATA_DIR: dataDir,
            ADAPTER_THREADS: 'workers',
            RELATIONAL_RETRY_BACKOFF_MS: '20',
            CSV_RETRY_BACKOFF_MS: '20',
            ...overrides,
          }),
          logger: silentLogger(),
          db,
          broker: open.broker,
          threadEngines: engines,
          threadEntry,
          onThreadCrash: (role) => crashes.push(role),
        });
      const tableIds = async () =>
        (
          await db.query<{ intern_id: string }>('SELECT intern_id FROM interns').catch(() => ({
            rows: [],
          }))
        ).rows.map((row) => row.intern_id);
      const csvLines = async () =>
        (await readFile(join(dataDir, 'integration', 'csv', 'interns.csv'), 'utf8').catch(() => ''))
          .split('\r\n')
          .slice(1)
          .filter(Boolean);
      const submitBatch = async (payloads: Array<Record<string, unknown>>) => {
        const response = await fetch(
          `${platform!.urls.submission}/contracts/interns/records:batch`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ records: payloads }),
          },
        );
        assert.equal(response.status, 200, await response.clone().text());
      };
      const seeded = (p: RunningPlatform) =>
        waitFor(
          'the relational and csv adapters to hold the seeded interns attachments',
          async () => {
            for (const role of ['relational', 'csv'] as const) {
              const status = (await (await fetch(`${p.urls[role]}/admin/status`)).json()) as {
                attachments?: Array<{ contractId: string }>;
              };
              if (!status.attachments?.some((a) => a.contractId === 'interns')) return false;
            }
            return true;
          },
          30_000,
        );

      before(async () => {
        dataDir = await mkdtemp(join(tmpdir(), 'integration-threads-'));
        open = await driver.open();
        if (driver.name === 'jetstream') {
          testDb = await createTestDatabase('integration_threads');
          db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused' });
          engines = { ...open.threadEngines, databaseUrl: testDb.url };
        } else {
          db = open.db;
          engines = open.threadEngines!;
        }
      });
      after(async () => {
        await platform?.close();
        await open?.cleanup();
        if (testDb) await db?.close();
        await testDb?.drop();
        await rm(dataDir, { recursive: true, force: true });
      });

      it('runs each adapter role in a worker thread of its own, named by its /health', async () => {
        platform = await start();
        await seeded(platform);
        const threadIds = platform.adapters.map((adapter) => adapter.threadId);
        assert.deepEqual(platform.adapters.map((a) => a.role).sort(), [
          'csv',
          'relational',
          'webhook',
        ]);
        assert.ok(
          threadIds.every((id) => id > 0),
          `thread ids ${threadIds.join(', ')} (0 is the main thread)`,
        );
        assert.equal(new Set(threadIds).size, 3, 'one thread a role');
        for (const adapter of platform.adapters) {
          const health = (await (await fetch(`${adapter.url}/health`)).json()) as {
            status: string;
            dependencies: { thread: { info: { threadId: number; worker: boolean } } };
          };
          assert.equal(health.status, 'ok', `${adapter.role}: ${JSON.stringify(health)}`);
          assert.deepEqual(health.dependencies.thread.info, {
            threadId: adapter.threadId,
            worker: true,
          });
        }
        const payload = internPayload();
        await submitBatch([payload]);
        await waitFor(
          'the record in the table and the file',
          async () =>
            (await tableIds()).includes(String(payload.internId)) &&
            (await csvLines()).some((line) => line.includes(`,${payload.internId},`)),
          30_000,
        );
      });

      it('a graceful close stops every thread (exit code 0); after a restart each record lands once', async () => {
        const payloads = Array.from({ length: 400 }, () => internPayload());
        const ids = payloads.map((p) => String(p.internId));
        const threads = [...platform!.adapters] as RoleThread[];
        await submitBatch(payloads.slice(0, 200));
        await submitBatch(payloads.slice(200));
        // Closed while the adapters are consuming: their batches in flight finish first.
        await waitFor(
          'the adapters to have begun the batch',
          async () => (await tableIds()).some((id) => ids.includes(id)),
          30_000,
          5,
        );
        await platform!.close();
        platform = undefined;
        assert.deepEqual(await Promise.all(threads.map((thread) => thread.exited)), [0, 0, 0]);
        assert.deepEqual(crashes, []);

        platform = await start();
        await waitFor(
          'every record in the table and the file',
          async () => {
            const inTable = new Set(await tableIds());
            const lines = await csvLines();
            return (
              ids.every((id) => inTable.has(id)) &&
              ids.every((id) => lines.some((line) => line.includes(`,${id},`)))
            );
          },
          60_000,
          100,
        );
        const lines = await csvLines();
        for (const id of ids)
          assert.equal(lines.filter((line) => line.includes(`,${id},`)).length, 1, id);
      });

      it('reports a thread that ends unasked as a crash of its role', async () => {
        const csv = (platform!.adapters as RoleThread[]).find((a) => a.role === 'csv')!;
        await csv.worker.terminate();
        await waitFor('the crash reported', () => crashes.includes('csv'));
        assert.deepEqual(crashes, ['csv']);
        assert.equal(await csv.exited, 1);
        // The rest still closes gracefully (what main.ts does before it exits 1).
        const others = (platform!.adapters as RoleThread[]).filter((a) => a.role !== 'csv');
        await platform!.close();
        platform = undefined;
        assert.deepEqual(await Promise.all(others.map((thread) => thread.exited)), [0, 0]);
      });
    },
  );
}

describe('adapter threads on PGlite', () => {
  let dataDir: string;
  let db: SqlDatabase;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'integration-threads-pglite-'));
    db = await createSqlDatabase({ dataDir: 'memory://' });
  });
  after(async () => {
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses ADAPTER_THREADS=workers, naming the variable', async () => {
    await assert.rejects(
      startPlatform({
        env: platformEnv({ DATA_DIR: dataDir, ADAPTER_THREADS: 'workers' }),
        logger: silentLogger(),
        db,
      }),
      (error) => error instanceof ConfigError && /ADAPTER_THREADS/.test(error.message),
    );
  });

  it('runs the adapters on the main thread by default', async () => {
    const platform = await startPlatform({
      env: platformEnv({ DATA_DIR: dataDir }),
      logger: silentLogger(),
      db,
    });
    try {
      assert.deepEqual(
        platform.adapters.map((a) => a.threadId),
        [0, 0, 0],
      );
      const health = (await (await fetch(`${platform.urls.csv}/health`)).json()) as {
        dependencies: { thread: { info: unknown } };
      };
      assert.deepEqual(health.dependencies.thread.info, { threadId: 0, worker: false });
    } finally {
      await platform.close();
    }
  });
});

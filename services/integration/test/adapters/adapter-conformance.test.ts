/**
 * One conformance suite for every adapter type (relational, csv, webhook) on every
 * broker driver: what the `AdapterTarget` contract promises whatever the target is.
 *
 * - a redelivered event takes effect once;
 * - a stale update (older revision, arriving after a newer one) leaves the newer state;
 * - a tombstone removes the key, whatever order it and its create arrive in;
 * - a poison message goes to the dead letters and the next good record is written;
 * - a flat message of the first releases is read as an interns envelope;
 * - a new contract version (an added optional field) keeps the attachment writing;
 * - offsets in the target (issue 11 item 2): after a restart with the broker's commits
 *   lost, the adapter resumes at the position the target stored (nothing is delivered
 *   again); a batch delivered again below that position (the group rewound) is skipped.
 *
 * Each target is seen through a `Probe`: the current state a reader of that target sees
 * per natural key (rows, file lines, or the webhook receiver folding deliveries by
 * revision as the README tells receivers to), and how often a record took effect. "Does
 * not happen" is checked once the adapter's committed position is past the record
 * (`GET /admin/status`), never after a fixed sleep. Adapter-specific behaviour (columns,
 * signatures, locks, shaped tables) stays in each adapter's own test file.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipReason } from '@platform/testing';
import { buildCsvAdapter } from '../../src/adapters/csv/build-csv-adapter.js';
import { parseCsv } from '@platform/core';
import { buildRelationalAdapter } from '../../src/adapters/relational/build-relational-adapter.js';
import type { ContractView } from '../../src/adapters/runtime/attachment.js';
import type { Adapter } from '../../src/adapters/runtime/build-adapter.js';
import { buildWebhookAdapter } from '../../src/adapters/webhook/build-webhook-adapter.js';
import type { PublishResult } from '../../src/broker/broker.js';
import { startHarness, type Harness } from '../helpers/adapter-harness.js';
import { BROKER_DRIVERS, uniqueName, waitFor } from '../helpers/broker-drivers.js';
import {
  flatIntern,
  internCreated,
  internDeleted,
  internUpdated,
  INTERNS,
  topicOf,
  type TestEnvelope,
} from '../helpers/records.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** What a reader of the target sees for one key. */
interface KeyState {
  recordId: string;
  status: string;
}

interface Restartable {
  readonly adapter: Adapter;
  /** Stops the adapter, runs `meanwhile`, and starts a new one over the same target state. */
  restart(meanwhile: () => Promise<void>): Promise<void>;
}

interface Probe {
  running: Restartable;
  /** Current state per natural key (interns: internId). */
  state(): Promise<Map<string, KeyState>>;
  /** How many times the record took effect in the target (rows, lines, deliveries). */
  effects(recordId: string): Promise<number>;
  close(): Promise<void>;
}

/** An adapter built by `build`, restartable over the same target state. */
async function restartable(build: () => Promise<Adapter>): Promise<Restartable> {
  const start = async () => {
    const built = await build();
    await built.start();
    return built;
  };
  let adapter = await start();
  return {
    get adapter() {
      return adapter;
    },
    async restart(meanwhile) {
      await adapter.stop();
      await meanwhile();
      adapter = await start();
    },
  };
}

interface AdapterKind {
  name: string;
  /** Attaches the interns contract, builds and starts the adapter. */
  open(harness: Harness): Promise<Probe>;
}

const KINDS: AdapterKind[] = [
  {
    name: 'relational',
    async open(harness) {
      harness.controlPlane.attach(INTERNS, 'relational', { mode: 'generic', table: 'records' });
      const running = await restartable(() =>
        buildRelationalAdapter({ ...harness.adapterDeps(), db: harness.db }),
      );
      return {
        running,
        async state() {
          const { rows } = await harness.db.query<{
            natural_key: string;
            record_id: string;
            payload: Record<string, string>;
          }>(
            `SELECT natural_key, record_id::text AS record_id, payload FROM records
             WHERE contract_id = 'interns' AND deleted_at IS NULL`,
          );
          return new Map(
            rows.map((r) => [r.natural_key, { recordId: r.record_id, status: r.payload.status! }]),
          );
        },
        async effects(recordId) {
          const { rows } = await harness.db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM records WHERE record_id = $1',
            [recordId],
          );
          return rows[0]!.n;
        },
        close: () => running.adapter.stop(),
      };
    },
  },
  {
    name: 'csv',
    async open(harness) {
      const baseDir = await mkdtemp(join(tmpdir(), 'csv-conformance-'));
      harness.controlPlane.attach(INTERNS, 'csv', {
        path: 'interns.csv',
        columns: ['intern_id', 'record_id', 'status'],
      });
      const running = await restartable(() =>
        buildCsvAdapter({ ...harness.adapterDeps(), baseDir }),
      );
      const rows = async () =>
        parseCsv(await readFile(join(baseDir, 'interns.csv'), 'utf8').catch(() => '')).slice(1);
      return {
        running,
        async state() {
          return new Map(
            (await rows()).map(([key, recordId, status]) => [
              key!,
              { recordId: recordId!, status: status! },
            ]),
          );
        },
        effects: async (recordId) => (await rows()).filter((row) => row[1] === recordId).length,
        async close() {
          await running.adapter.stop();
          await rm(baseDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'webhook',
    async open(harness) {
      const stateDir = await mkdtemp(join(tmpdir(), 'webhook-conformance-'));
      const receiver: WebhookReceiver = await startWebhookReceiver();
      harness.controlPlane.attach(INTERNS, 'webhook', {
        url: `${receiver.url}/conformance`,
        authType: 'bearer',
        token: 'conformance-token',
      });
      // The receiver is a loopback server: allowed explicitly, as ALLOWED_OUTBOUND would.
      const running = await restartable(() =>
        buildWebhookAdapter({
          ...harness.adapterDeps(),
          stateDir,
          allowedOutbound: ['127.0.0.1'],
        }),
      );
      const envelopes = () =>
        receiver.deliveries.map((d) => JSON.parse(d.body) as TestEnvelope & { recordType: string });
      return {
        running,
        // A receiver keeps, per key, the event of the highest revision (then the latest
        // occurredAt); a tombstone removes the key.
        async state() {
          const newest = new Map<string, TestEnvelope>();
          for (const e of envelopes()) {
            const held = newest.get(e.naturalKey);
            const newer =
              !held ||
              (e.revision ?? 0) > (held.revision ?? 0) ||
              ((e.revision ?? 0) === (held.revision ?? 0) && e.occurredAt > held.occurredAt);
            if (newer) newest.set(e.naturalKey, e);
          }
          return new Map(
            [...newest]
              .filter(([, e]) => e.recordType !== 'intern.deleted')
              .map(([key, e]) => [key, { recordId: e.recordId, status: String(e.payload.status) }]),
          );
        },
        effects: async (recordId) => envelopes().filter((e) => e.recordId === recordId).length,
        async close() {
          await running.adapter.stop();
          await receiver.close();
          await rm(stateDir, { recursive: true, force: true });
        },
      };
    },
  },
];

for (const driverName of ['sql-log-pglite', 'jetstream']) {
  const driver = BROKER_DRIVERS.find((d) => d.name === driverName)!;
  const missing = await driver.missing();
  for (const kind of KINDS) {
    describe(
      `adapter conformance: ${kind.name} on ${driverName}`,
      { skip: skipReason(`${missing} (adapter conformance)`, !missing) },
      () => {
        let harness: Harness;
        let probe: Probe;

        before(async () => {
          harness = await startHarness(driver);
          probe = await kind.open(harness);
        });
        after(async () => {
          await probe?.close();
          await harness?.cleanup();
        });

        const publish = (e: TestEnvelope): Promise<PublishResult> =>
          harness.broker.publish(topicOf(e), e.naturalKey, JSON.stringify(e));
        /** Waits until the adapter committed past every given record (handled it, whatever the outcome). */
        const handled = (...records: PublishResult[]) => handledWithin(10_000, ...records);
        const handledWithin = (timeoutMs: number, ...records: PublishResult[]) =>
          waitFor(
            `${kind.name} past ${records.length} record(s)`,
            async () => {
              const status = (
                await probe.running.adapter.app.inject({ method: 'GET', url: '/admin/status' })
              ).json() as {
                assignments: Array<{ topic: string; partition: number; committedOffset: number }>;
              };
              return records.every((r) =>
                status.assignments.some(
                  (a) =>
                    a.topic === r.topic &&
                    a.partition === r.partition &&
                    a.committedOffset > r.offset,
                ),
              );
            },
            timeoutMs,
          );
        /**
         * The target shows everything decided so far: an update of a fresh key, published
         * once the records before it were handled, is visible (a CSV file trails its
         * journal by a rebuild and takes its steps in order, so it shows the earlier ones
         * too).
         */
        const settled = async () => {
          const barrier = { ...internUpdated(uniqueName('barrier')), revision: 1 };
          await publish(barrier);
          await waitFor('the target shows a later record', async () =>
            (await probe.state()).has(barrier.naturalKey),
          );
        };
        const stateOf = async (key: string) => {
          await settled();
          return (await probe.state()).get(key);
        };

        it('a redelivered event takes effect once', async () => {
          const created = { ...internCreated(uniqueName('redeliver')), revision: 1 };
          const first = await publish(created);
          const second = await publish(created);
          await handled(first, second);
          assert.equal((await stateOf(created.naturalKey))?.recordId, created.recordId);
          assert.equal(await probe.effects(created.recordId), 1);
        });

        it('a stale update arriving after a newer one leaves the newer state', async () => {
          const id = uniqueName('stale');
          const created = { ...internCreated(id), revision: 1 };
          const newer = { ...internUpdated(id, { status: 'COMPLETED' }), revision: 3 };
          const stale = { ...internUpdated(id, { status: 'WITHDRAWN' }), revision: 2 };
          const positions = [await publish(created), await publish(newer)];
          await handled(...positions);
          positions.push(await publish(stale));
          await handled(...positions);
          assert.equal((await stateOf(id))?.status, 'COMPLETED');
        });

        it('a tombstone removes the key, in whatever order it and its create arrive', async () => {
          const id = uniqueName('tomb');
          const created = { ...internCreated(id), revision: 1 };
          const tombstone = { ...internDeleted(id), revision: 2 };
          // The tombstone first: the create that arrives after it is older and stays out.
          const positions = [await publish(tombstone), await publish(created)];
          await handled(...positions);
          assert.equal(await stateOf(id), undefined);
          const other = uniqueName('tomb');
          const otherPositions = [await publish({ ...internCreated(other), revision: 1 })];
          await handled(...otherPositions);
          assert.ok(await stateOf(other), 'created');
          await handled(await publish({ ...internDeleted(other), revision: 2 }));
          assert.equal(await stateOf(other), undefined, 'deleted');
        });

        it('a poison message goes to the dead letters and the next good record is written', async () => {
          const key = uniqueName('poison');
          await harness.publishRaw(
            'interns.created',
            key,
            JSON.stringify({ contractId: 'interns', recordId: 'not-a-uuid' }),
          );
          const good = { ...internCreated(uniqueName('after-poison')), revision: 1 };
          await handled(await publish(good));
          await waitFor('the dead letter', () =>
            harness.deadLetters.some(
              (d) =>
                d.originalKey === key && d.failedAdapter === probe.running.adapter.consumerGroup,
            ),
          );
          const letter = harness.deadLetters.find((d) => d.originalKey === key)!;
          assert.equal(letter.errorType, 'SCHEMA_VIOLATION');
          assert.equal(letter.contractId, 'interns');
          assert.equal((await stateOf(good.naturalKey))?.recordId, good.recordId);
        });

        it('a flat message of the first releases is read as an interns envelope', async () => {
          const flat = flatIntern(uniqueName('flat'));
          const at = await harness.broker.publish(
            'intern.created',
            String(flat.internId),
            JSON.stringify(flat),
          );
          await handled(at);
          assert.deepEqual(await stateOf(String(flat.internId)), {
            recordId: flat.recordId,
            status: 'ACTIVE',
          });
        });

        it('keeps writing when a new contract version adds an optional field', async () => {
          const v2: ContractView = {
            ...INTERNS,
            schemaVersion: 2,
            fields: [...INTERNS.fields, { name: 'nickname', type: 'string', required: false }],
          };
          for (const attachment of harness.controlPlane.attachments) attachment.contract = v2;
          await probe.running.adapter.runtime.refresh();
          const newer = {
            ...internCreated(uniqueName('v2'), { nickname: 'Ada' }),
            schemaVersion: 2,
            revision: 1,
          };
          const older = { ...internCreated(uniqueName('v1')), revision: 1 };
          await handled(await publish(newer), await publish(older));
          assert.equal((await stateOf(newer.naturalKey))?.recordId, newer.recordId);
          assert.equal((await stateOf(older.naturalKey))?.recordId, older.recordId);
        });

        /** Records the adapter counted as duplicates since it started (its own metrics). */
        const duplicates = async () => {
          const text = (await probe.running.adapter.app.inject({ method: 'GET', url: '/metrics' }))
            .body;
          return [
            ...text.matchAll(
              /integration_adapter_records_total\{[^}]*outcome="duplicate"[^}]*\} (\d+)/g,
            ),
          ].reduce((sum, match) => sum + Number(match[1]), 0);
        };
        const createdBatch = async (base: string, count: number) => {
          const records = Array.from({ length: count }, () => ({
            ...internCreated(uniqueName(base)),
            revision: 1,
          }));
          const positions: PublishResult[] = [];
          for (const record of records) positions.push(await publish(record));
          await handled(...positions);
          return { records, positions };
        };

        /**
         * Created records, at least `count`, until each of the topic's 3 partitions got one:
         * every partition's log then ends with a record the target wrote, so its stored
         * position covers all of it. A record skipped as a duplicate stores no position in
         * csv (its journal holds written records only) nor, when it came alone, in webhook
         * (README, "Offsets in the target"): a partition whose log ended with the first
         * test's redelivery would be read again from there after the rewind, and that
         * record skipped again by id — no effect, but counted as a duplicate.
         */
        const createdOnEveryPartition = async (base: string, count: number) => {
          const records: TestEnvelope[] = [];
          const positions: PublishResult[] = [];
          const partitions = new Set<number>();
          // 50 random keys leave a partition out about once in 200 million runs.
          while (records.length < count || (partitions.size < 3 && records.length < 50)) {
            const record = { ...internCreated(uniqueName(base)), revision: 1 };
            const at = await publish(record);
            records.push(record);
            positions.push(at);
            partitions.add(at.partition);
          }
          assert.equal(partitions.size, 3, 'a record on every partition');
          await handled(...positions);
          return { records, positions };
        };

        it('resumes at the offset the target stored when the broker lost its commits', async () => {
          const { records, positions } = await createdOnEveryPartition('resume', 4);
          await probe.running.restart(async () => {
            // A crash between the target's commit and the broker's: the group's committed
            // offsets go back to the start of the log.
            const rewinder = await harness.broker.subscribeBatches(
              { groupId: probe.running.adapter.consumerGroup, topics: [] },
              async () => undefined,
            );
            for (let partition = 0; partition < 3; partition += 1)
              await rewinder.seek('interns.created', partition, 0);
            await rewinder.stop();
          });
          const later = { ...internCreated(uniqueName('after-restart')), revision: 1 };
          await handled(...positions, await publish(later));
          assert.equal((await stateOf(later.naturalKey))?.recordId, later.recordId);
          for (const record of records) assert.equal(await probe.effects(record.recordId), 1);
          // Resumed at the target's position: nothing of the rewound log came again.
          assert.equal(await duplicates(), 0, 'no record delivered again after the restart');
        });

        it('skips a batch delivered again below the offset the target stored', async () => {
          const { records, positions } = await createdBatch('rewind', 3);
          const before = await duplicates();
          const last = positions.at(-1)!;
          await probe.running.adapter.runtime.seek(last.topic, last.partition, 0);
          const later = { ...internCreated(uniqueName('after-rewind')), revision: 1 };
          const laterAt = await publish(later);
          // On JetStream a seek re-creates the durable; the worker's long poll on the old one
          // ends within its 1 s expiry before the partition is read again from the start.
          await handledWithin(30_000, ...positions, laterAt);
          assert.equal((await stateOf(later.naturalKey))?.recordId, later.recordId);
          for (const record of records) assert.equal(await probe.effects(record.recordId), 1);
          assert.ok(
            (await duplicates()) > before,
            'the rewound records came again and were skipped',
          );
        });
      },
    );
  }
}

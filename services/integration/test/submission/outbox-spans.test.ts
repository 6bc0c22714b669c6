/**
 * The reconciler's pass costs the events of the last seconds, not the whole window's
 * (issue 21, README round "the intake's outbox made HOT", item (d)): with 1,000 and with
 * 20,000 events sent a minute ago and held by the broker, a pass after the first reads
 * about as many outbox rows either way (`EXPLAIN ANALYZE` of each statement it ran,
 * the rows its scans of `intake_outbox` returned). The old pass summed the whole window
 * each time: 20,000 rows. And what it keeps from pass to pass never hides an event
 * marked sent later in a bucket it read already.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { SqlDatabase } from '@platform/core';
import { skipReason } from '@platform/testing';
import { buildEnvelope } from '../../src/contracts/envelope.js';
import type { Payload } from '../../src/contracts/payload.js';
import { ContractCache } from '../../src/submission/contract-cache.js';
import { markSent } from '../../src/submission/outbox.js';
import { OutboxRelay } from '../../src/submission/outbox-relay.js';
import { reserveCreates } from '../../src/submission/read-model.js';
import { SentSpanCache } from '../../src/submission/sent-span-cache.js';
import { BROKER_DRIVERS, silentLogger } from '../helpers/broker-drivers.js';
import { internPayload, internsLike } from '../support/contracts.js';
import { openHarness, type Harness } from '../support/harness.js';

const SQL_LOG = BROKER_DRIVERS.filter((d) => d.name.startsWith('sql-log'));

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans of `intake_outbox` returned. */
function outboxRowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'intake_outbox'
      ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + outboxRowsRead(child), 0);
}

for (const driver of SQL_LOG) {
  const missing = await driver.missing();
  describe(
    `outbox reconciler's cost: ${driver.name}`,
    { skip: skipReason(`${missing} (broker driver ${driver.name})`, !missing) },
    () => {
      let h: Harness;
      let contracts: ContractCache;
      const contract = internsLike();
      before(async () => {
        h = await openHarness(driver);
        await h.register(contract);
        contracts = new ContractCache(h.db, silentLogger());
      });
      after(async () => (await contracts?.close(), await h?.close()));

      /** `events` events sent a minute ago on a partition of their own, held by the broker. */
      const sentAMinuteAgo = async (topic: string, events: number) => {
        await h.db.query(
          `INSERT INTO intake_outbox (record_id, contract_id, natural_key, kind, topic, envelope,
             revision, owner, sent_at, window_at, partition, "offset")
           SELECT gen_random_uuid(), 'spans', $1 || i, 'create', $1, jsonb_build_object('pad', repeat('x', 600)),
             1, 'spans-test', now() - interval '1 minute', now() - interval '1 minute', 0, i
           FROM generate_series(0, $2::integer - 1) AS i`,
          [topic, events],
        );
        await h.brokerDb.query(
          `INSERT INTO broker_messages (topic, partition, "offset", key, value)
           SELECT $1, 0, i, $1 || i, '\\x00'::bytea FROM generate_series(0, $2::integer - 1) AS i`,
          [topic, events],
        );
      };

      const newRelay = (db: SqlDatabase) =>
        new OutboxRelay({
          db,
          broker: h.broker,
          logger: silentLogger(),
          contracts,
          owner: 'spans-test',
          settings: { relayIntervalMs: 3_600_000, reconcileIntervalMs: 3_600_000 },
        });

      /** Outbox rows read by a relay pass after its first (a fresh relay's). */
      const rowsReadBySecondPass = async () => {
        const ran: { text: string; params?: readonly unknown[] }[] = [];
        const db = Object.create(h.db) as SqlDatabase;
        db.query = ((text: string, params?: readonly unknown[]) => {
          ran.push({ text, params });
          return h.db.query(text, params);
        }) as SqlDatabase['query'];
        const relay = newRelay(db);
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 0 });
        ran.length = 0;
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 0 });
        let rows = 0;
        for (const { text, params } of ran) {
          if (!/^\s*(SELECT|WITH)\b/i.test(text) || /\b(INSERT|UPDATE|DELETE)\b/i.test(text))
            continue;
          const { rows: plan } = await h.db.query<{ 'QUERY PLAN': unknown }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
            params,
          );
          const json = plan[0]!['QUERY PLAN'];
          const parsed = (typeof json === 'string' ? JSON.parse(json) : json) as {
            Plan: PlanNode;
          }[];
          rows += outboxRowsRead(parsed[0]!.Plan);
        }
        return rows;
      };

      it('a pass reads as many outbox rows with 20,000 events in the window as with 1,000', async (t) => {
        await sentAMinuteAgo('spans.small', 1_000);
        const small = await rowsReadBySecondPass();
        await sentAMinuteAgo('spans.large', 19_000);
        const large = await rowsReadBySecondPass();
        t.diagnostic(`outbox rows a pass read: ${small} (1,000 in the window), ${large} (20,000)`);
        assert.ok(large < 1_000, `a pass read ${large} outbox rows of 20,000 in the window`);
        assert.ok(large <= small + 100, `${large} rows with 20,000 events, ${small} with 1,000`);
      });

      it('an event queued a minute ago and marked sent after two passes is checked by the next', async () => {
        // Its bucket of `window_at` (its queuing) was read by those passes while it was
        // unsent: kept as settled, it would never be read again and its loss never seen.
        const envelope = buildEnvelope(contract, 'intern.created', internPayload() as Payload, {
          recordId: randomUUID(),
          traceId: randomUUID(),
          occurredAt: new Date(),
        });
        const topic = `${contract.contractId}.created`;
        await reserveCreates(h.db, [{ envelope, topic }], 'a-slow-request');
        await h.db.query(
          "UPDATE intake_outbox SET window_at = now() - interval '1 minute' WHERE record_id = $1",
          [envelope.recordId],
        );
        const relay = newRelay(h.db);
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 0 });
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 0 });
        // The request's mark-sent, at an offset the broker no longer holds (lost since).
        await markSent(h.db, [{ recordId: envelope.recordId, partition: 0, offset: 1_000_000 }]);
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 1 });
        assert.deepEqual(await relay.runOnce(), { published: 0, republished: 0 }, 'not again');
      });

      it(
        'an event written by a transaction open over a bucket is counted once it commits',
        { skip: driver.name === 'sql-log-pglite' && 'PGlite runs one transaction at a time' },
        async () => {
          // Its `window_at` is its transaction's start, in a bucket the calls see end while
          // the transaction is open: kept as settled (empty), the event would never count.
          const bucketMs = 200;
          const cache = new SentSpanCache(300_000, bucketMs);
          const spanOf = async () =>
            (await cache.spans(h.db)).find((span) => span.topic === 'spans.open-transaction');
          let commit!: () => void;
          const committed = new Promise<void>((resolve) => (commit = resolve));
          let written!: () => void;
          const inserted = new Promise<void>((resolve) => (written = resolve));
          const transaction = h.db.transaction(async (tx) => {
            await tx.query(
              `INSERT INTO intake_outbox (record_id, contract_id, natural_key, kind, topic, envelope,
                 revision, owner, sent_at, partition, "offset")
               VALUES (gen_random_uuid(), 'spans', 'open', 'create', 'spans.open-transaction',
                 '{}'::jsonb, 1, 'spans-test', now(), 0, 7)`,
            );
            written();
            await committed;
          });
          await inserted;
          const start = Date.now();
          // Calls over more than two buckets while it is open.
          while (Date.now() - start < 3 * bucketMs) assert.equal(await spanOf(), undefined);
          commit();
          await transaction;
          const span = await spanOf();
          assert.deepEqual(
            span && [span.fromOffset, span.toOffset, span.events],
            [7, 7, 1],
            "the committed event is in its partition's span",
          );
        },
      );
    },
  );
}

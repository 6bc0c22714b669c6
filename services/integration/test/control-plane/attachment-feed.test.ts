/**
 * The adapters' long-polled attachment feed wakes only for what it carries: an attachment
 * of the waiting request's adapter type added or toggled, or a contract changed — made
 * through this control plane or another on the same database (by NOTIFY). The adapters'
 * heartbeats (a PUT of their descriptor every few seconds) and another type's attachment
 * wake nothing: each wake re-reads the feed, two statements per waiting adapter, which the
 * embedded default pays in its one PGlite session. Wakes are counted as feed re-reads on
 * the real database, with the no-change re-read bound set far beyond the test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { CSV_CONFIG_SCHEMA } from '../../src/adapters/csv/csv-config.js';
import { RELATIONAL_CONFIG_SCHEMA } from '../../src/adapters/relational/relational-config.js';
import { buildControlPlaneApp } from '../../src/control-plane/app.js';
import { BROKER_DRIVERS, silentLogger, waitFor } from '../helpers/broker-drivers.js';
import { internsLike } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

const descriptors = {
  csv: {
    type: 'csv',
    description: 'CSV files',
    configSchema: CSV_CONFIG_SCHEMA,
    consumerGroup: 'adapter.csv',
  },
  relational: {
    type: 'relational',
    description: 'Tables',
    configSchema: RELATIONAL_CONFIG_SCHEMA,
    consumerGroup: 'adapter.relational',
  },
};
/** The feed's attachment read (listAttachments); one per feed read. */
const FEED_READ = /FROM adapter_attachments\s+WHERE \(\$1::text IS NULL/;
/** Far beyond the test: a re-read without a notification would be a wake this test counts. */
const NO_RECHECK_MS = 600_000;

interface Feed {
  attachments: Array<{
    attachmentId: string;
    adapterType: string;
    config: Record<string, unknown>;
    contract: { schemaVersion: number };
  }>;
  version: string;
}

/** The same database, counting the feed's attachment reads. */
function counting(db: SqlDatabase): { db: SqlDatabase; feedReads: () => number } {
  let reads = 0;
  const wrapped = new Proxy(db, {
    get(target, property) {
      if (property === 'query')
        return (text: string, params?: readonly unknown[]) => {
          if (FEED_READ.test(text)) reads += 1;
          return target.query(text, params);
        };
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  return { db: wrapped, feedReads: () => reads };
}

const drivers = BROKER_DRIVERS.filter((d) => d.name.startsWith('sql-log'));

for (const driver of drivers) {
  describe(`attachment feed wakes: ${driver.name}`, async () => {
    const missing = await driver.missing();
    let h: Harness;
    let cp: FastifyInstance;
    let other: FastifyInstance;
    let feedReads: () => number;
    const contract = internsLike();
    const id = contract.contractId;

    before(async () => {
      if (missing) return;
      h = await openHarness(driver);
      const counted = counting(h.db);
      feedReads = counted.feedReads;
      const options = {
        broker: h.broker,
        logger: silentLogger(),
        seedInternsAttachments: false,
        attachmentFeedRecheckMs: NO_RECHECK_MS,
      };
      cp = await buildControlPlaneApp({ ...options, db: counted.db });
      other = await buildControlPlaneApp({ ...options, db: h.db });
      await h.register(contract);
      for (const descriptor of Object.values(descriptors))
        assert.equal(
          (
            await cp.inject({
              method: 'PUT',
              url: `/adapter-types/${descriptor.type}`,
              payload: descriptor,
            })
          ).statusCode,
          201,
        );
    });
    after(async () => {
      await cp?.close();
      await other?.close();
      await h?.close();
    });

    const attach = (app: FastifyInstance, adapterType: string, config: object) =>
      app.inject({
        method: 'POST',
        url: `/contracts/${id}/adapters`,
        payload: { adapterType, config },
      });
    const heartbeat = (type: keyof typeof descriptors) =>
      cp.inject({ method: 'PUT', url: `/adapter-types/${type}`, payload: descriptors[type] });
    /** Starts a long poll of the csv feed and resolves once it has read the feed and waits. */
    const waitingCsvPoll = async () => {
      const known = json<Feed>(await cp.inject({ url: '/attachments?adapterType=csv' }));
      const before = feedReads();
      const answer = cp.inject({
        url: `/attachments?adapterType=csv&knownVersion=${known.version}&waitSeconds=30`,
      });
      await waitFor('the poll read the feed once', () => feedReads() === before + 1, 10_000, 2);
      return { known, answer, readsBefore: before + 1 };
    };

    it(
      'heartbeats and another type’s attachment wake nothing; an attachment of the type answers the poll',
      {
        skip: missing,
      },
      async () => {
        const { known, answer, readsBefore } = await waitingCsvPoll();
        for (let beat = 0; beat < 5; beat++) {
          assert.equal((await heartbeat('csv')).statusCode, 200);
          assert.equal((await heartbeat('relational')).statusCode, 200);
        }
        const relational = await attach(cp, 'relational', { mode: 'generic', table: 'feed_other' });
        assert.equal(relational.statusCode, 201, relational.body);
        const csv = await attach(cp, 'csv', { path: 'feed-wakes.csv' });
        assert.equal(csv.statusCode, 201, csv.body);
        const feed = json<Feed>(await answer);
        assert.notEqual(feed.version, known.version, 'the poll answered with the change');
        assert.ok(feed.attachments.some((a) => a.config.path === 'feed-wakes.csv'));
        assert.ok(feed.attachments.every((a) => a.adapterType === 'csv'));
        assert.equal(
          feedReads() - readsBefore,
          1,
          'one re-read, for the csv attachment: ten heartbeats and a relational attachment woke nothing',
        );
      },
    );

    it(
      'a change made through another control plane on the same database answers the poll (NOTIFY)',
      {
        skip: missing,
      },
      async () => {
        const { known, answer, readsBefore } = await waitingCsvPoll();
        const made = await attach(other, 'csv', { path: 'feed-elsewhere.csv' });
        assert.equal(made.statusCode, 201, made.body);
        const feed = json<Feed>(await answer);
        assert.notEqual(feed.version, known.version);
        assert.ok(feed.attachments.some((a) => a.config.path === 'feed-elsewhere.csv'));
        assert.equal(feedReads() - readsBefore, 1);
      },
    );

    it(
      'a toggled attachment and a new contract version each answer the poll',
      {
        skip: missing,
      },
      async () => {
        const first = await waitingCsvPoll();
        const toggled = first.known.attachments.find((a) => a.config.path === 'feed-wakes.csv')!;
        const patch = await other.inject({
          method: 'PATCH',
          url: `/contracts/${id}/adapters/${toggled.attachmentId}`,
          payload: { enabled: false },
        });
        assert.equal(patch.statusCode, 200, patch.body);
        assert.notEqual(json<Feed>(await first.answer).version, first.known.version);

        const second = await waitingCsvPoll();
        const evolved = await other.inject({
          method: 'POST',
          url: `/contracts/${id}/versions`,
          payload: {
            ...contract,
            schemaVersion: 2,
            fields: [...contract.fields, { name: 'phone', type: 'string', required: false }],
          },
        });
        assert.equal(evolved.statusCode, 201, evolved.body);
        const feed = json<Feed>(await second.answer);
        assert.ok(feed.attachments.every((a) => a.contract.schemaVersion === 2));
        assert.equal(feedReads() - second.readsBefore, 1);
      },
    );
  });
}

/**
 * Kill an adapter process mid-batch, restart it: no record lost, none applied twice
 * (issue 11), on the SQL log (PostgreSQL: shared by the processes) and on JetStream.
 *
 * The csv and relational adapters run in a child process (`helpers/adapter-process.ts`);
 * 600 events (300 keys, each created then updated) are published while the first child
 * drains them; it is killed with SIGKILL once its csv journal holds 50, events still
 * arriving, and a second child drains the rest. Once both consumer groups committed
 * everything published (JetStream: the server's ack floors, past the 30 s ack wait after
 * which the killed process's messages come again): every event has one journal entry and
 * one audit row (none applied twice), and every key's row and line is its update (none
 * lost).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { connect } from 'nats';
import { createSqlDatabase, type SqlDatabase } from '@platform/core';
import {
  createTestDatabase,
  natsUrlForTests,
  postgresUrlForTests,
  skipReason,
  type TestDatabase,
} from '@platform/testing';
import { parseCsv } from '@platform/core';
import type { Broker } from '../../src/broker/broker.js';
import { createJetStreamBroker } from '../../src/broker/jetstream/jetstream-broker.js';
import { durableName, streamName } from '../../src/broker/jetstream/naming.js';
import { createSqlLogBroker } from '../../src/broker/sql-log/sql-log-broker.js';
import { HARNESS_TOPICS } from '../helpers/adapter-harness.js';
import { silentLogger, waitFor } from '../helpers/broker-drivers.js';
import {
  startControlPlaneStandIn,
  type ControlPlaneStandIn,
} from '../helpers/control-plane-stand-in.js';
import { internCreated, internUpdated, INTERNS, topicOf } from '../helpers/records.js';

const CHILD = fileURLToPath(new URL('../helpers/adapter-process.ts', import.meta.url));
const KEYS = 300;
const EVENTS = 2 * KEYS;

const postgres = await postgresUrlForTests();
const nats = await natsUrlForTests();

for (const driver of ['sql-log', 'jetstream'] as const) {
  const missing = !postgres
    ? 'PostgreSQL on 127.0.0.1:5432 (the processes share the database)'
    : driver === 'jetstream' && !nats
      ? 'NATS JetStream on 127.0.0.1:4222'
      : undefined;
  describe(
    `an adapter process killed mid-batch on ${driver}`,
    { skip: skipReason(`${missing} (adapter kill test)`, !missing) },
    () => {
      let testDb: TestDatabase;
      let db: SqlDatabase;
      let broker: Broker;
      let controlPlane: ControlPlaneStandIn;
      let csvDir: string;
      const prefix = `K${randomBytes(5).toString('hex').toUpperCase()}`;
      const children = new Set<ChildProcess>();

      before(async () => {
        testDb = await createTestDatabase('adapter_kill');
        db = await createSqlDatabase({ url: testDb.url, dataDir: 'unused', poolSize: 2 });
        broker =
          driver === 'jetstream'
            ? await createJetStreamBroker({ url: nats!, logger: silentLogger(), prefix })
            : await createSqlLogBroker({ db, logger: silentLogger() });
        for (const name of [...HARNESS_TOPICS, 'platform.dlq'])
          await broker.ensureTopic({ name, partitions: name === 'platform.dlq' ? 1 : 3 });
        controlPlane = await startControlPlaneStandIn();
        controlPlane.attach(INTERNS, 'relational', { mode: 'generic', table: 'records' });
        controlPlane.attach(INTERNS, 'csv', {
          path: 'interns.csv',
          columns: ['intern_id', 'record_id', 'status'],
        });
        csvDir = await mkdtemp(join(tmpdir(), 'adapter-kill-'));
      });
      after(async () => {
        for (const child of children) child.kill('SIGKILL');
        await broker?.close();
        await controlPlane?.close();
        await db?.close();
        await testDb?.drop();
        if (csvDir) await rm(csvDir, { recursive: true, force: true });
      });

      /** Starts an adapter process; resolves with its adapters' admin URLs once they started. */
      const startChild = async (): Promise<Record<string, string>> => {
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
          env: {
            ...process.env,
            KILL_DRIVER: driver,
            KILL_DATABASE_URL: testDb.url,
            KILL_PREFIX: prefix,
            KILL_CONTROL_PLANE_URL: controlPlane.url,
            KILL_CSV_DIR: csvDir,
            ...(nats ? { NATS_URL: nats } : {}),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.add(child);
        child.once('exit', () => children.delete(child));
        const line = await new Promise<string>((resolve, reject) => {
          createInterface({ input: child.stdout! }).once('line', resolve);
          child.once('exit', (code) => reject(new Error(`adapter process exited (${code})`)));
        });
        return JSON.parse(line) as Record<string, string>;
      };
      const journal = async () => {
        const states = await readdir(join(csvDir, '.state')).catch(() => [] as string[]);
        if (!states[0]) return [];
        const text = await readFile(
          join(csvDir, '.state', states[0], 'journal.jsonl'),
          'utf8',
        ).catch(() => '');
        return text
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { r: string }).r);
      };
      /** Next offset per partition published to, from the publish answers. */
      const ends = new Map<string, number>();
      /**
       * True once the group committed everything published: the SQL log's committed
       * offsets, or JetStream's ack floors (read from the server: messages the killed
       * process held are delivered again only after the 30 s ack wait, and until then
       * the floor stays below them whatever later messages were acked).
       */
      const caughtUp = async (group: string) => {
        const committed = new Map<string, number>();
        if (driver === 'jetstream') {
          const nc = await connect({ servers: nats!, timeout: 2000 });
          try {
            const jsm = await nc.jetstreamManager();
            for (const slot of ends.keys()) {
              const [topic, partition] = slot.split('/');
              const info = await jsm.consumers
                .info(streamName(prefix, topic!, Number(partition)), durableName(group))
                .catch(() => undefined);
              committed.set(slot, info?.ack_floor.stream_seq ?? 0);
            }
          } finally {
            await nc.close();
          }
        } else {
          const { rows } = await db.query<{ topic: string; partition: number; c: string }>(
            'SELECT topic, partition, committed_offset AS c FROM broker_group_offsets WHERE group_id = $1',
            [group],
          );
          for (const row of rows) committed.set(`${row.topic}/${row.partition}`, Number(row.c));
        }
        return [...ends].every(([slot, end]) => (committed.get(slot) ?? 0) >= end);
      };

      it('loses no record and applies none twice', async () => {
        const first = [...children];
        await startChild();
        const victim = [...children].find((child) => !first.includes(child))!;
        // Published while the first child drains, paced (two events every 5 ms, about 1.5 s
        // in all) so it is killed with events arriving (a batch in hand, or one being read)
        // and the rest come after its death.
        let published = 0;
        const publishing = (async () => {
          for (let k = 0; k < KEYS; k += 1) {
            const id = `kill-${k}`;
            for (const event of [
              { ...internCreated(id), revision: 1 },
              { ...internUpdated(id, { status: 'COMPLETED' }), revision: 2 },
            ]) {
              const at = await broker.publish(
                topicOf(event),
                event.naturalKey,
                JSON.stringify(event),
              );
              ends.set(`${at.topic}/${at.partition}`, at.offset + 1);
              published += 1;
            }
            await sleep(5);
          }
        })();
        // Bound: the child applies what is published within seconds even on a loaded machine.
        await waitFor(
          'the first child applying events',
          async () => (await journal()).length >= 50,
          60_000,
          5,
        );
        victim.kill('SIGKILL');
        await new Promise((resolve) => victim.once('exit', resolve));
        const atKill = (await journal()).length;
        assert.ok(published < EVENTS, `killed while events were arriving (${published} published)`);
        await publishing;
        assert.ok(atKill < EVENTS, `killed mid-drain (${atKill} of ${EVENTS} journaled)`);

        await startChild();
        // Bound: 600 events drained by one process, plus, on JetStream, the 30 s ack wait
        // after which the messages the killed process held are delivered again (until then
        // they hold the group's committed offset back); generous for two loaded cores.
        await waitFor(
          'both adapters committed everything published',
          async () => (await caughtUp('adapter.csv')) && (await caughtUp('adapter.relational')),
          150_000,
          250,
        );

        const entries = await journal();
        assert.equal(entries.length, EVENTS, 'one journal entry per event');
        assert.equal(new Set(entries).size, EVENTS, 'no event journaled twice');
        const audit = await db.query<{ n: number; distinct: number }>(
          'SELECT count(*)::int AS n, count(DISTINCT record_id)::int AS distinct FROM audit_log',
        );
        assert.deepEqual(audit.rows[0], { n: EVENTS, distinct: EVENTS }, 'one audit row per event');
        const rows = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM records WHERE contract_id = 'interns' AND payload->>'status' = 'COMPLETED'`,
        );
        assert.equal(rows.rows[0]!.n, KEYS, 'every key at its update in the table');
        const lines = parseCsv(await readFile(join(csvDir, 'interns.csv'), 'utf8')).slice(1);
        assert.equal(lines.length, KEYS, 'one line per key in the file');
        assert.ok(
          lines.every((line) => line[2] === 'COMPLETED'),
          'every line at its update',
        );
      });
    },
  );
}

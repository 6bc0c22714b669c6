/**
 * Admission's transaction in batches (admission/admissions.ts, migration 010): the
 * submissions of one turn go as one statement, each counted under its address's lock
 * after the ones before it, so the per-address limits stay exact within a batch and
 * across concurrent batches (on PostgreSQL, several "instances" on sessions of their own,
 * taking the same addresses' locks in different orders, never deadlocking); a refusal
 * undoes nothing, and an error in a batch fails only its own submission.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  advisoryLockKey,
  createSqlDatabase,
  type SqlDatabase,
  type SqlExecutor,
} from '@platform/core';
import { createAdmissions } from '../../src/admission/admissions.js';
import { DEFAULT_RENDER_OPTIONS } from '../../src/admission/validate-render-form.js';
import type { Admission, ReplayInfo } from '../../src/jobs/job-store.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';
import { seededReplayInfo } from '../helpers/outbox.js';

function admission(address: string, id = randomUUID(), playerName?: string): Admission {
  return {
    lockKey: advisoryLockKey(`render-address:${address}`),
    job: {
      id,
      skin: 'Default',
      options: { ...DEFAULT_RENDER_OPTIONS, bgDim: 0.25 },
      clientIp: address,
      replayKey: `replays/${id}.osr`,
      replayInfo: seededReplayInfo(playerName),
      fingerprint: `batch-test-${id}`,
    },
  };
}

/** The database, keeping the statements sent through it and the errors they met. */
function counting(db: SqlExecutor): SqlExecutor & { statements: string[]; errors: unknown[] } {
  const statements: string[] = [];
  const errors: unknown[] = [];
  return {
    statements,
    errors,
    query: <R>(text: string, params?: readonly unknown[]) => {
      statements.push(text);
      return db.query<R>(text, params).catch((error: unknown) => {
        errors.push(error);
        throw error;
      });
    },
  };
}

const shuffled = <T>(items: T[]): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

for (const { kind, skip } of await engineSets()) {
  describe(`admission batches (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let db: SqlDatabase;
    before(async () => {
      engines = await openTestEngines(kind);
      db = engines.ctx.db;
    });
    after(async () => {
      await engines?.close();
    });

    async function jobsOf(address: string): Promise<number> {
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM render_jobs WHERE client_ip = $1',
        [address],
      );
      return Number(rows[0]!.n);
    }

    test('one statement for a turn: each counted after the ones before it, refusals undo nothing', async () => {
      const counted = counting(db);
      const admissions = createAdmissions(counted, { maxActive: 2, dailyQuota: 50 });
      const [a, b] = [freshAddress(), freshAddress()];
      const order = [a, a, a, b, a, b, b, b];
      const results = await Promise.all(order.map((ip) => admissions.admit(admission(ip))));
      assert.equal(counted.statements.length, 1);
      assert.match(counted.statements[0]!, /render_admit_jobs/);
      assert.deepEqual(
        results.map((r) => [r.inserted, r.usage.active]),
        [
          [true, 0],
          [true, 1],
          [false, 2],
          [true, 0],
          [false, 2],
          [true, 1],
          [false, 2],
          [false, 2],
        ],
      );
      assert.equal(await jobsOf(a), 2);
      assert.equal(await jobsOf(b), 2);
      // Each written job has its outbox event.
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM render_outbox o JOIN render_jobs j ON j.id = o.job_id
          WHERE j.client_ip = ANY($1::text[])`,
        [[a, b]],
      );
      assert.equal(Number(rows[0]!.n), 4);
    });

    test('the daily quota is counted within a batch too', async () => {
      const admissions = createAdmissions(db, { maxActive: 100, dailyQuota: 3 });
      const address = freshAddress();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => admissions.admit(admission(address))),
      );
      assert.deepEqual(
        results.map((r) => [r.inserted, r.usage.lastDay]),
        [
          [true, 0],
          [true, 1],
          [true, 2],
          [false, 3],
          [false, 3],
        ],
      );
      assert.ok(results[4]!.usage.lastDayResetsAt instanceof Date);
      assert.equal(await jobsOf(address), 3);
    });

    test('options and replay info are stored as given (quotes, backslashes, braces, commas)', async () => {
      const admissions = createAdmissions(db, { maxActive: 2, dailyQuota: 50 });
      const name = 'a "b" \\c {d,e} ü\u0001';
      const picked = [admission(freshAddress(), randomUUID(), name), admission(freshAddress())];
      await Promise.all(picked.map((one) => admissions.admit(one)));
      const { rows } = await db.query<{ options: unknown; replay_info: ReplayInfo }>(
        'SELECT options, replay_info FROM render_jobs WHERE id = $1',
        [picked[0]!.job.id],
      );
      assert.deepEqual(rows[0]!.options, picked[0]!.job.options);
      assert.deepEqual(rows[0]!.replay_info, picked[0]!.job.replayInfo);
    });

    test('an error in a batch fails only its own submission', async () => {
      const admissions = createAdmissions(db, { maxActive: 2, dailyQuota: 50 });
      const taken = admission(freshAddress());
      await admissions.admit(taken);
      // The same job id again: a primary-key violation, which rolls the batch back.
      const others = [admission(freshAddress()), admission(freshAddress())];
      const outcomes = await Promise.allSettled([
        admissions.admit(others[0]!),
        admissions.admit({ ...admission(freshAddress()), job: { ...taken.job } }),
        admissions.admit(others[1]!),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      for (const other of others) assert.equal(await jobsOf(other.job.clientIp), 1);
    });

    test('concurrent batches of several instances admit exactly the limit per address', async () => {
      // Instances of their own (on PostgreSQL each with its own sessions), all taking the
      // locks of the same addresses in batches built in different orders.
      const instances: SqlDatabase[] =
        kind === 'real'
          ? await Promise.all(
              [1, 2, 3].map(() =>
                createSqlDatabase({ url: engines.databaseUrl!, dataDir: '', poolSize: 4 }),
              ),
            )
          : [db, db, db];
      try {
        const addresses = Array.from({ length: 20 }, () => freshAddress());
        const sessions = instances.map((instance) => counting(instance));
        const results = await Promise.all(
          sessions.flatMap((session) => {
            const admissions = createAdmissions(session, { maxActive: 2, dailyQuota: 50 });
            // Each instance: four submissions per address, in an order of its own, in
            // several turns (so batches overlap in time).
            const mine = shuffled(addresses.flatMap((ip) => [ip, ip, ip, ip]));
            return [0, 1, 2, 3].map(async (turn) => {
              await new Promise((resolve) => setImmediate(resolve));
              return Promise.all(
                mine.slice(turn * 20, turn * 20 + 20).map((ip) => admissions.admit(admission(ip))),
              );
            });
          }),
        );
        const inserted = results.flat().filter((r) => r.inserted).length;
        assert.equal(inserted, 40);
        // No batch met an error (a deadlock, say) and was admitted again one by one.
        assert.deepEqual(
          sessions.flatMap((session) => session.errors),
          [],
        );
        for (const ip of addresses) assert.equal(await jobsOf(ip), 2, ip);
      } finally {
        if (kind === 'real') await Promise.all(instances.map((instance) => instance.close()));
      }
    });
  });
}

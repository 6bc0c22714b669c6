/**
 * Status reads that miss the caches, and admission's first looks, share statements: those
 * of one event-loop turn go to the database together, each answered with its own job (or
 * none) or its own address's usage, on both engines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SqlExecutor } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { createAdmissionLooks } from '../../src/admission/admission-looks.js';
import { createJobReader } from '../../src/jobs/job-reader.js';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';

for (const { kind, skip } of await engineSets()) {
  describe(`statements shared by a turn (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    before(async () => {
      engines = await openTestEngines(kind, { maxQueued: 1000, maxRendering: 1000 });
      app = await buildTestApp(engines);
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    const countingExecutor = () => {
      const statements: string[] = [];
      const counting: SqlExecutor = {
        query: (sql, params) => {
          statements.push(sql);
          return engines.ctx.db.query(sql, params);
        },
      };
      return { statements, counting };
    };

    test('reads asked for in one turn are one statement, each with its own row', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await submit(app, {
          address: freshAddress(),
          replay: readFixture('perfect.osr'),
        });
        assert.equal(res.statusCode, 202);
        ids.push(res.json().job_id as string);
      }
      const { statements, counting } = countingExecutor();
      const reader = createJobReader(counting);
      const unknown = '00000000-0000-4000-8000-000000000000';
      const rows = await Promise.all([...ids, unknown, ids[0]!].map((id) => reader.get(id)));
      assert.equal(statements.length, 1);
      assert.deepEqual(
        rows.map((row) => row?.id),
        [...ids, undefined, ids[0]],
      );
      assert.equal(rows[0]?.status, 'queued');
      // A later turn is a statement of its own, and sees the row as it is then.
      await engines.ctx.db.query(`UPDATE render_jobs SET status = 'failed' WHERE id = $1`, [
        ids[1],
      ]);
      assert.equal((await reader.get(ids[1]!))?.status, 'failed');
      assert.equal(statements.length, 2);
    });

    test("admission's looks asked for in one turn are one statement, each with its address's usage", async () => {
      const busy = freshAddress();
      const res = await submit(app, { address: busy, replay: readFixture('perfect.osr') });
      assert.equal(res.statusCode, 202);
      const { statements, counting } = countingExecutor();
      const looks = createAdmissionLooks(counting, { queued: 1000, rendering: 1000 });
      const idle = freshAddress();
      const [first, second, third] = await Promise.all([
        looks.look(idle),
        looks.look(busy),
        looks.look(idle),
      ]);
      assert.equal(statements.length, 1);
      assert.deepEqual([first!.usage.active, second!.usage.active, third!.usage.active], [0, 1, 0]);
      assert.equal(second!.usage.lastDay, 1);
      assert.ok(second!.usage.lastDayResetsAt instanceof Date);
      const { rows } = await engines.ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM render_jobs WHERE status = 'queued'`,
      );
      for (const look of [first!, second!, third!])
        assert.deepEqual(look.load, { queued: rows[0]!.n, rendering: 0 });
    });
  });
}

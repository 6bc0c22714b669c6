/**
 * Status reads that miss the caches share statements: the reads of one event-loop turn
 * go to the database together, each answered with its own job (or none), on both engines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SqlExecutor } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { createJobReader } from '../../src/jobs/job-reader.js';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';

for (const { kind, skip } of await engineSets()) {
  describe(`job reads in batches (${kind})`, { skip }, () => {
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
      const statements: string[] = [];
      const counting: SqlExecutor = {
        query: (sql, params) => {
          statements.push(sql);
          return engines.ctx.db.query(sql, params);
        },
      };
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
  });
}

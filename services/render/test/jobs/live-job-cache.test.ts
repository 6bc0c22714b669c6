/**
 * Active jobs answered from memory, never older than the database, on both engines:
 * every change (a worker's progress, a removal, any UPDATE, by this process or by another
 * session, as another instance would write) is seen by the next read, and a row read while
 * a change was announced is not kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';

for (const { kind, skip } of await engineSets()) {
  describe(`active jobs read from memory (${kind})`, { skip }, () => {
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

    const newJob = async () => {
      const res = await submit(app, {
        address: freshAddress(),
        replay: readFixture('perfect.osr'),
      });
      assert.equal(res.statusCode, 202);
      return res.json().job_id as string;
    };
    const read = async (id: string) => (await app.inject(`/v1/jobs/${id}`)).json();
    // Kept once a read finds no change announced meanwhile; the listener starts with the context.
    const readUntilKept = async (id: string) => {
      for (let i = 0; i < 50 && !engines.ctx.liveJobs.get(id); i += 1) await read(id);
      return engines.ctx.liveJobs.get(id);
    };

    test('every write is seen by the next read', async () => {
      const id = await newJob();
      const kept = await readUntilKept(id);
      assert.equal(kept?.status, 'queued', 'the active job is kept');
      for (const [status, progress] of [
        ['downloading', 0],
        ['rendering', 10],
        ['rendering', 57.5],
      ] as const) {
        await engines.ctx.db.query(
          `UPDATE render_jobs SET status = $2, progress = $3 WHERE id = $1`,
          [id, status, progress],
        );
        const seen = await read(id);
        assert.equal(seen.status, status);
        assert.equal(seen.progress, progress);
        await readUntilKept(id);
      }
      await engines.ctx.db.query(`DELETE FROM render_jobs WHERE id = $1`, [id]);
      assert.equal(
        (await app.inject(`/v1/jobs/${id}`)).statusCode,
        404,
        'a deleted row is gone at once',
      );
    });

    test('a job removed by DELETE answers 410 at once', async () => {
      const id = await newJob();
      await readUntilKept(id);
      // From loopback without keys: an operator.
      const removed = await app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` });
      assert.equal(removed.statusCode, 204);
      assert.equal((await app.inject(`/v1/jobs/${id}`)).statusCode, 410);
      assert.equal(engines.ctx.liveJobs.get(id), undefined);
    });

    test('a row read while a change is announced is not kept', async () => {
      const id = await newJob();
      const before = engines.ctx.liveJobs.mark();
      const [row] = (await engines.ctx.db.query(`SELECT * FROM render_jobs WHERE id = $1`, [id]))
        .rows;
      await engines.ctx.db.query(`UPDATE render_jobs SET progress = 5 WHERE id = $1`, [id]);
      engines.ctx.liveJobs.offer(row as never, before);
      // On PostgreSQL the notification may arrive after the UPDATE's answer: lookup waits for it.
      assert.equal(await engines.ctx.liveJobs.lookup(id), undefined, 'the older row is not kept');
      assert.equal((await read(id)).progress, 5);
    });

    test('a write by another session (another instance) is seen by the next read', async (t) => {
      if (!engines.ctx.db.supportsConcurrentSessions) {
        t.skip('the embedded engine has one session, in this process');
        return;
      }
      const other = await createSqlDatabase({ url: engines.databaseUrl!, dataDir: '' });
      try {
        const id = await newJob();
        assert.equal((await readUntilKept(id))?.status, 'queued');
        for (let progress = 1; progress <= 30; progress += 1) {
          await other.query(
            `UPDATE render_jobs SET status = 'rendering', progress = $2 WHERE id = $1`,
            [id, progress],
          );
          assert.equal((await read(id)).progress, progress, `write ${progress}`);
          await readUntilKept(id);
        }
        await other.query(`DELETE FROM render_jobs WHERE id = $1`, [id]);
        assert.equal((await app.inject(`/v1/jobs/${id}`)).statusCode, 404);
      } finally {
        await other.close();
      }
    });
  });
}

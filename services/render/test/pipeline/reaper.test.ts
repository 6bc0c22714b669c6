/** Reaper: stuck jobs fail; queued jobs whose dispatch was lost are dispatched again, a bounded number of times. */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { reapOnce, redispatchAfterRestart } from '../../src/reaper/reaper.js';
import { engineSets, openTestEngines, type TestEngines } from '../helpers/harness.js';
import { seedJobs } from '../helpers/outbox.js';

const options = { stuckSeconds: 60, redispatchAfterSeconds: 120, maxDispatches: 2 };

for (const { kind, skip } of await engineSets()) {
  describe(`reaper (${kind})`, { skip }, () => {
    let engines: TestEngines;
    before(async () => {
      engines = await openTestEngines(kind);
    });
    beforeEach(async () => {
      await engines.ctx.db.query('DELETE FROM render_jobs');
    });
    after(async () => {
      await engines?.close();
    });
    const status = async (id: string) =>
      (
        await engines.ctx.db.query<{
          status: string;
          error: string | null;
          dispatch_count: number;
        }>('SELECT status, error, dispatch_count FROM render_jobs WHERE id = $1', [id])
      ).rows[0]!;
    const events = async (id: string) =>
      Number(
        (
          await engines.ctx.db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM render_outbox WHERE job_id = $1',
            [id],
          )
        ).rows[0]!.n,
      );

    test('downloading/rendering jobs without a heartbeat past the timeout fail; live ones stay', async () => {
      const [stuckRender, stuckDownload, alive] = await seedJobs(engines, 3);
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'rendering', heartbeat_at = now() - interval '2 minutes' WHERE id = $1`,
        [stuckRender],
      );
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'downloading', heartbeat_at = now() - interval '61 seconds' WHERE id = $1`,
        [stuckDownload],
      );
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'rendering', heartbeat_at = now() - interval '5 seconds' WHERE id = $1`,
        [alive],
      );
      const result = await reapOnce(engines.ctx.db, options);
      assert.equal(result.failedStuck, 2);
      assert.equal((await status(stuckRender!)).status, 'failed');
      assert.match((await status(stuckDownload!)).error ?? '', /stopped responding/);
      assert.equal((await status(alive!)).status, 'rendering');
    });

    test('a queued job whose dispatch was lost is dispatched again, then failed after the limit', async () => {
      const [lost, pending, fresh] = await seedJobs(engines, 3);
      // lost: dispatched long ago, never taken. fresh: dispatched just now. pending: not dispatched yet.
      await engines.ctx.db.query(
        `UPDATE render_outbox SET dispatched_at = now() - interval '10 minutes' WHERE job_id = $1`,
        [lost],
      );
      await engines.ctx.db.query(
        `UPDATE render_outbox SET dispatched_at = now() WHERE job_id = $1`,
        [fresh],
      );
      await engines.ctx.db.query(`UPDATE render_jobs SET created_at = now() - interval '1 hour'`);
      const first = await reapOnce(engines.ctx.db, options);
      assert.deepEqual(first, { failedStuck: 0, redispatched: 1, failedUndispatchable: 0 });
      assert.equal(await events(lost!), 2);
      assert.equal((await status(lost!)).dispatch_count, 2);
      assert.equal(await events(pending!), 1);
      assert.equal(await events(fresh!), 1);
      // Nothing more while the new event is pending.
      assert.deepEqual(await reapOnce(engines.ctx.db, options), {
        failedStuck: 0,
        redispatched: 0,
        failedUndispatchable: 0,
      });
      // The second dispatch is lost too: the limit (2) is reached, the job fails.
      await engines.ctx.db.query(
        `UPDATE render_outbox SET dispatched_at = now() - interval '10 minutes' WHERE job_id = $1`,
        [lost],
      );
      const last = await reapOnce(engines.ctx.db, options);
      assert.equal(last.failedUndispatchable, 1);
      const job = await status(lost!);
      assert.equal(job.status, 'failed');
      assert.equal(job.error, 'The job could not be handed to a worker after 2 attempts.');
      assert.equal((await status(pending!)).status, 'queued');
    });

    test('after a restart with an in-process queue, queued jobs already dispatched get a new event', async () => {
      const [lost, pending, running] = await seedJobs(engines, 3);
      await engines.ctx.db.query(
        `UPDATE render_outbox SET dispatched_at = now() WHERE job_id <> $1`,
        [pending],
      );
      await engines.ctx.db.query(`UPDATE render_jobs SET status = 'rendering' WHERE id = $1`, [
        running,
      ]);
      assert.equal(await redispatchAfterRestart(engines.ctx.db), 1);
      assert.equal(await events(lost!), 2);
      assert.equal(await events(pending!), 1, 'its event is still pending: left alone');
      assert.equal(await events(running!), 1);
      assert.equal(await redispatchAfterRestart(engines.ctx.db), 0, 'nothing twice');
    });
  });
}

/**
 * Reaper: stuck jobs go back to the queue, a bounded number of times; queued jobs waiting
 * in the task queue are never failed for waiting; jobs whose task is gone are dispatched
 * again, at most once per window, without being charged (test/job-processing/lost-tasks).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createDispatcher } from '../../src/dispatcher/dispatcher.js';
import { claimJob, updateRunningJob } from '../../src/jobs/job-store.js';
import { BullmqTaskQueue } from '../../src/queue/bullmq/bullmq-task-queue.js';
import type { TaskQueue } from '../../src/queue/task-queue.js';
import { NOTHING_REAPED, reapOnce, redispatchAfterRestart } from '../../src/reaper/reaper.js';
import { engineSets, openTestEngines, quietLogger, type TestEngines } from '../helpers/harness.js';
import { seedJobs } from '../helpers/outbox.js';
import { testQueue } from '../helpers/job-processing.js';

const options = { stuckSeconds: 60, redispatchAfterSeconds: 120, maxDispatches: 2 };

for (const { kind, skip } of await engineSets()) {
  describe(`reaper (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let queue: TaskQueue;
    before(async () => {
      engines = await openTestEngines(kind);
    });
    beforeEach(async () => {
      await engines.ctx.db.query('DELETE FROM render_jobs');
      queue = testQueue(engines);
    });
    afterEach(async () => {
      if (queue instanceof BullmqTaskQueue) await queue.obliterate().catch(() => undefined);
      await queue.close();
    });
    after(async () => {
      await engines?.close();
    });
    /** Runs `handle` for the next `n` tasks; returns how many were taken. */
    const consumeAll = async (n: number, handle: (jobId: string) => Promise<void>) => {
      let taken = 0;
      const consumer = queue.consume(
        async (task) => {
          taken += 1;
          await handle(task.jobId);
        },
        { concurrency: 4 },
      );
      const deadline = Date.now() + 15_000;
      while (taken < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await consumer.close();
      return taken;
    };
    const eventCount = async () =>
      Number(
        (await engines.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM render_outbox'))
          .rows[0]!.n,
      );
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

    test('downloading/rendering jobs without a heartbeat go back to the queue (new event); past the dispatch limit they fail; live ones stay', async () => {
      const [stuckRender, stuckDownload, alive, exhausted] = await seedJobs(engines, 4);
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'rendering', worker_id = 'dead', progress = 40,
                heartbeat_at = now() - interval '2 minutes' WHERE id = $1`,
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
      await engines.ctx.db.query(
        `UPDATE render_jobs SET status = 'rendering', dispatch_count = $2,
                heartbeat_at = now() - interval '2 minutes' WHERE id = $1`,
        [exhausted, options.maxDispatches],
      );
      const result = await reapOnce(engines.ctx.db, queue, options);
      assert.equal(result.requeuedStuck, 2);
      assert.equal(result.failedStuck, 1);
      for (const id of [stuckRender!, stuckDownload!]) {
        const job = await status(id);
        assert.equal(job.status, 'queued');
        assert.equal(job.dispatch_count, 2);
        assert.equal(await events(id), 2, 'a new outbox event');
      }
      const { rows } = await engines.ctx.db.query<{ worker_id: string | null; progress: number }>(
        'SELECT worker_id, progress FROM render_jobs WHERE id = $1',
        [stuckRender],
      );
      assert.equal(rows[0]!.worker_id, null);
      assert.equal(Number(rows[0]!.progress), 0);
      assert.equal((await status(exhausted!)).status, 'failed');
      assert.equal(
        (await status(exhausted!)).error,
        'The render stopped responding (worker lost or timed out) and was abandoned after 2 attempts.',
      );
      assert.equal(await events(exhausted!), 1);
      assert.equal((await status(alive!)).status, 'rendering');
    });

    test('a backlog longer than the window waits untouched; only jobs whose task is gone are dispatched again', async () => {
      const backlog = 120;
      const ids = await seedJobs(engines, backlog);
      const dispatcher = createDispatcher(engines.ctx.db, queue, quietLogger, { batchSize: 50 });
      assert.equal(await dispatcher.runOnce(), backlog);
      // No worker for hours: each pass sees every job far past the re-dispatch window.
      let clock = Date.now();
      const reap = () => reapOnce(engines.ctx.db, queue, { ...options, now: () => clock });
      for (let hour = 1; hour <= 6; hour += 1) {
        clock += 3_600_000;
        assert.deepEqual(await reap(), NOTHING_REAPED);
      }
      const { rows } = await engines.ctx.db.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM render_jobs GROUP BY status',
      );
      assert.deepEqual(rows, [{ status: 'queued', n: backlog }]);
      assert.equal(await eventCount(), backlog, 'no job dispatched twice');

      // A worker takes the backlog; three tasks fail before their job is claimed (the
      // task is gone, the job still queued): only those three are dispatched again.
      const lost = new Set(ids.slice(0, 3));
      const taken = await consumeAll(backlog, async (jobId) => {
        if (lost.has(jobId)) throw new Error('database unreachable at claim');
        await claimJob(engines.ctx.db, jobId, 'reaper-test');
        await updateRunningJob(engines.ctx.db, jobId, 'reaper-test', { status: 'completed' });
      });
      assert.equal(taken, backlog);
      // Lost again and again, more often than the limit (2): no worker ever started them,
      // so each time they are dispatched again, uncharged, once per window.
      for (let loss = 1; loss <= 3; loss += 1) {
        clock += 3_600_000;
        assert.deepEqual(await reap(), { ...NOTHING_REAPED, redispatchedLost: 3 });
        assert.deepEqual(await reap(), NOTHING_REAPED, 'the new event is pending: nothing more');
        assert.equal(await dispatcher.runOnce(), 3);
        if (loss < 3)
          assert.equal(
            await consumeAll(3, async () => {
              throw new Error('lost again');
            }),
            3,
          );
      }
      for (const id of lost) {
        const job = await status(id);
        assert.equal(job.status, 'queued');
        assert.equal(job.dispatch_count, 1, 'lost tasks are not charged');
        assert.equal(await events(id), 4);
      }
      assert.equal(
        await consumeAll(3, async (jobId) => {
          await claimJob(engines.ctx.db, jobId, 'reaper-test');
          await updateRunningJob(engines.ctx.db, jobId, 'reaper-test', { status: 'completed' });
        }),
        3,
      );
      for (const id of ids) assert.equal((await status(id)).status, 'completed');
    });

    test('a job whose event is not dispatched yet, or was dispatched recently, is left alone', async () => {
      const [pending, fresh] = await seedJobs(engines, 2);
      await engines.ctx.db.query(
        `UPDATE render_outbox SET dispatched_at = now() WHERE job_id = $1`,
        [fresh],
      );
      await engines.ctx.db.query(`UPDATE render_jobs SET created_at = now() - interval '1 hour'`);
      assert.deepEqual(await reapOnce(engines.ctx.db, queue, options), NOTHING_REAPED);
      assert.equal(await events(pending!), 1);
      assert.equal(await events(fresh!), 1);
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
      assert.equal((await status(lost!)).dispatch_count, 1, 'the queue lost it: not charged');
      assert.equal(await events(pending!), 1, 'its event is still pending: left alone');
      assert.equal(await events(running!), 1);
      assert.equal(await redispatchAfterRestart(engines.ctx.db), 0, 'nothing twice');
    });
  });
}

/**
 * Dispatcher: every outbox event reaches the queue exactly once — with several
 * dispatchers at once, when one crashes after claiming or after enqueuing (its claim
 * expires and another finishes the work; the queue drops the repeat), and when the
 * queue refuses for a while (the event is retried).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createDispatcher } from '../../src/dispatcher/dispatcher.js';
import { pendingEventCount } from '../../src/dispatcher/outbox-store.js';
import type { RenderTask, TaskQueue } from '../../src/queue/task-queue.js';
import { drain, letOutboxDelaysPass, seedJobs } from '../helpers/outbox.js';
import { BullmqTaskQueue } from '../../src/queue/bullmq/bullmq-task-queue.js';
import { engineSets, openTestEngines, quietLogger, type TestEngines } from '../helpers/harness.js';
import { testQueue } from '../helpers/job-processing.js';

function assertOncePerJob(tasks: RenderTask[], ids: string[]) {
  const byJob = new Map<string, number>();
  for (const t of tasks) byJob.set(t.jobId, (byJob.get(t.jobId) ?? 0) + 1);
  assert.equal(tasks.length, ids.length, `tasks ${tasks.length} for ${ids.length} jobs`);
  for (const id of ids) assert.equal(byJob.get(id), 1, `job ${id}`);
}

class Crash extends Error {}

for (const { kind, skip } of await engineSets()) {
  describe(`dispatcher (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let queue: TaskQueue;
    before(async () => {
      engines = await openTestEngines(kind);
    });
    beforeEach(async () => {
      await engines.ctx.db.query('DELETE FROM render_jobs');
      if (queue instanceof BullmqTaskQueue) await queue.obliterate();
      await queue?.close();
      queue = testQueue(engines);
    });
    after(async () => {
      if (queue instanceof BullmqTaskQueue) await queue.obliterate().catch(() => undefined);
      await queue?.close();
      await engines?.close();
    });

    test('three dispatchers at once: each event queued exactly once', async () => {
      const ids = await seedJobs(engines, 60);
      const dispatchers = [1, 2, 3].map((i) =>
        createDispatcher(engines.ctx.db, queue, quietLogger, { id: `d${i}`, batchSize: 7 }),
      );
      const counts = await Promise.all(dispatchers.map((d) => d.runOnce()));
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        60,
      );
      assert.equal(await pendingEventCount(engines.ctx.db), 0);
      assertOncePerJob(await drain(queue, 60), ids);
    });

    for (const step of ['claimed', 'enqueued'] as const) {
      test(`a dispatcher crashing right after it ${step} an event loses nothing and queues nothing twice`, async () => {
        const ids = await seedJobs(engines, 12);
        let seen = 0;
        const crashing = createDispatcher(engines.ctx.db, queue, quietLogger, {
          id: 'crashing',
          batchSize: 5,
          // Long enough that the claim cannot run out while the survivor works, however
          // slow the machine; its expiry is then brought about by letOutboxDelaysPass.
          claimSeconds: 60,
          onStep: (s) => {
            if (s === step && ++seen === 3) throw new Crash(`killed after ${s}`);
          },
        });
        await assert.rejects(crashing.runOnce(), Crash);
        // Its claimed batch is stuck until the claim expires; then another dispatcher finishes.
        const survivor = createDispatcher(engines.ctx.db, queue, quietLogger, {
          id: 'survivor',
          batchSize: 5,
        });
        await survivor.runOnce();
        assert.ok(
          (await pendingEventCount(engines.ctx.db)) > 0,
          'the crashed batch waits for its claim to expire',
        );
        await letOutboxDelaysPass(engines.ctx.db);
        await survivor.runOnce();
        assert.equal(await pendingEventCount(engines.ctx.db), 0);
        assertOncePerJob(await drain(queue, ids.length), ids);
      });
    }

    test('a queue that refuses is retried later; the event is not lost', async () => {
      const ids = await seedJobs(engines, 3);
      let refuse = true;
      const flaky: TaskQueue = {
        driver: queue.driver,
        durable: queue.durable,
        enqueue: async (task) => {
          if (refuse) throw new Error('queue down');
          return queue.enqueue(task);
        },
        consume: (h, o) => queue.consume(h, o),
        waiting: () => queue.waiting(),
        inQueue: (ids) => queue.inQueue(ids),
        ping: () => queue.ping(),
        close: async () => undefined,
      };
      const d = createDispatcher(engines.ctx.db, flaky, quietLogger, { retryDelaySeconds: 60 });
      assert.equal(await d.runOnce(), 0);
      const { rows } = await engines.ctx.db.query<{ last_error: string; wait: number }>(
        `SELECT last_error, EXTRACT(EPOCH FROM available_at - now())::float8 AS wait
           FROM render_outbox`,
      );
      assert.ok(rows.every((r) => r.last_error === 'queue down'));
      // The first retry waits retryDelaySeconds × 1 attempt.
      assert.ok(
        rows.every((r) => r.wait > 50 && r.wait <= 60),
        `waits ${rows.map((r) => r.wait)}`,
      );
      refuse = false;
      assert.equal(await d.runOnce(), 0, 'not before the retry delay');
      await letOutboxDelaysPass(engines.ctx.db);
      assert.equal(await d.runOnce(), 3);
      assertOncePerJob(await drain(queue, 3), ids);
    });

    test('a running dispatcher is woken by NOTIFY without waiting for its poll', async () => {
      const pollMs = 60_000;
      const d = createDispatcher(engines.ctx.db, queue, quietLogger, { pollMs });
      await d.start(); // listening once this resolves
      try {
        const ids = await seedJobs(engines, 2);
        const started = Date.now();
        // A sixth of the poll period: only the notification can have woken it by then.
        while ((await pendingEventCount(engines.ctx.db)) > 0 && Date.now() - started < pollMs / 6)
          await new Promise((r) => setTimeout(r, 20));
        assert.equal(await pendingEventCount(engines.ctx.db), 0);
        assertOncePerJob(await drain(queue, 2), ids);
      } finally {
        await d.stop();
      }
    });
  });
}

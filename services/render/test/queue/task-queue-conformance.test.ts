/**
 * One conformance suite for every task-queue driver: the in-process queue and BullMQ on
 * Redis (skipped loudly without Redis). `QUEUE_DRIVER=memory|bullmq` narrows it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { redisUrlForTests, skipReason } from '@platform/testing';
import { BullmqTaskQueue } from '../../src/queue/bullmq/bullmq-task-queue.js';
import { createTaskQueue } from '../../src/queue/create-task-queue.js';
import type { RenderTask, TaskQueue } from '../../src/queue/task-queue.js';
import { quietLogger } from '../helpers/harness.js';

const redisUrl = await redisUrlForTests();
const DRIVERS = [
  { name: 'memory', skip: undefined, make: () => createTaskQueue({ logger: quietLogger }) },
  {
    name: 'bullmq',
    skip: skipReason('Redis (BullMQ queue conformance)', redisUrl !== undefined),
    make: () =>
      createTaskQueue({
        redisUrl,
        prefix: `render-queue-test-${randomBytes(5).toString('hex')}`,
        logger: quietLogger,
      }),
  },
].filter((d) => !process.env.QUEUE_DRIVER || d.name === process.env.QUEUE_DRIVER);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(10);
  }
}

for (const driver of DRIVERS) {
  describe(`task queue conformance: ${driver.name}`, { skip: driver.skip }, () => {
    let queue: TaskQueue;
    beforeEach(() => {
      queue = driver.make();
    });
    afterEach(async () => {
      if (queue instanceof BullmqTaskQueue) await queue.obliterate().catch(() => undefined);
      await queue.close();
    });

    test('the same event enqueued twice is one task', async () => {
      await queue.enqueue({ jobId: 'j1', eventId: '1' });
      await queue.enqueue({ jobId: 'j1', eventId: '1' });
      await queue.enqueue({ jobId: 'j1', eventId: '2' });
      assert.equal(await queue.waiting(), 2);
      await queue.ping();
    });

    test('tasks are handed out once each, at most `concurrency` at a time', async () => {
      const seen: RenderTask[] = [];
      let running = 0;
      let peak = 0;
      // The first tasks are held until three run at once, so the peak is reached by
      // construction, not by how long a handler happens to take.
      let threeRunning: () => void = () => undefined;
      const heldUntilThree = new Promise<void>((resolve) => (threeRunning = resolve));
      const consumer = queue.consume(
        async (task) => {
          running += 1;
          peak = Math.max(peak, running);
          if (running === 3) threeRunning();
          await heldUntilThree;
          seen.push(task);
          running -= 1;
        },
        { concurrency: 3 },
      );
      // Consumers wait first, then tasks arrive: every waiting slot must be woken.
      await sleep(50);
      for (let i = 0; i < 9; i += 1) await queue.enqueue({ jobId: `j${i}`, eventId: `e${i}` });
      await until(() => seen.length === 9);
      await consumer.close();
      assert.deepEqual(
        seen.map((t) => t.eventId).sort(),
        Array.from({ length: 9 }, (_, i) => `e${i}`).sort(),
      );
      assert.equal(peak, 3);
    });

    test('a handler that throws does not stop the consumer', async () => {
      const done: string[] = [];
      const consumer = queue.consume(
        async (task) => {
          if (task.eventId === 'bad') throw new Error('boom');
          done.push(task.eventId);
        },
        { concurrency: 1 },
      );
      await queue.enqueue({ jobId: 'a', eventId: 'bad' });
      await queue.enqueue({ jobId: 'b', eventId: 'good' });
      await until(() => done.includes('good'));
      await consumer.close();
    });

    test('inQueue names the events whose task waits or runs, not those done, failed or unknown', async () => {
      await queue.enqueue({ jobId: 'a', eventId: 'done' });
      await queue.enqueue({ jobId: 'b', eventId: 'failed' });
      await queue.enqueue({ jobId: 'c', eventId: 'running' });
      let release: () => void = () => undefined;
      const finished: string[] = [];
      const consumer = queue.consume(
        async (task) => {
          if (task.eventId === 'failed') {
            finished.push(task.eventId);
            throw new Error('boom');
          }
          if (task.eventId === 'running') await new Promise<void>((r) => (release = r));
          finished.push(task.eventId);
        },
        { concurrency: 1 },
      );
      await until(() => finished.length === 2);
      await queue.enqueue({ jobId: 'd', eventId: 'waiting' });
      const live = await queue.inQueue(['done', 'failed', 'running', 'waiting', 'never']);
      assert.deepEqual([...live].sort(), ['running', 'waiting']);
      release();
      await until(() => finished.length === 4);
      await consumer.close();
      assert.deepEqual([...(await queue.inQueue(['running', 'waiting']))], []);
    });

    test('close waits for the running task', async () => {
      let started = false;
      let finished = false;
      const consumer = queue.consume(
        async () => {
          started = true;
          await sleep(200);
          finished = true;
        },
        { concurrency: 1 },
      );
      await queue.enqueue({ jobId: 'slow', eventId: 'slow' });
      await until(() => started);
      await consumer.close();
      assert.equal(finished, true);
      assert.equal(queue.durable, driver.name === 'bullmq');
    });
  });
}

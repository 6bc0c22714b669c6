/**
 * Kill tests on PostgreSQL + Redis (BullMQ) + S3: a dispatcher process and a worker
 * process are SIGKILLed mid-work; afterwards no job is lost and none is queued twice.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { madeOsuFixturesDir } from '@platform/testing';
import { createDispatcher } from '../../src/dispatcher/dispatcher.js';
import { pendingEventCount } from '../../src/dispatcher/outbox-store.js';
import type { BullmqTaskQueue } from '../../src/queue/bullmq/bullmq-task-queue.js';
import { reapOnce } from '../../src/reaper/reaper.js';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import {
  engineSets,
  freshAddress,
  openTestEngines,
  quietLogger,
  type TestEngines,
} from '../helpers/harness.js';
import { startTestJobProcessing, testQueue, waitForJob } from '../helpers/job-processing.js';
import { drain, letOutboxDelaysPass, seedJobs } from '../helpers/outbox.js';

const real = (await engineSets()).find((e) => e.kind === 'real')!;
const skip = real.skip;
const childDir = fileURLToPath(new URL('./children/', import.meta.url));

function startChild(script: string, engines: TestEngines, extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(childDir, script)], {
    env: {
      ...process.env,
      DATABASE_URL: engines.databaseUrl!,
      REDIS_URL: engines.redisUrl!,
      QUEUE_PREFIX: engines.keyPrefix.replace(/:$/, ''),
      S3_ENDPOINT: engines.s3!.endpoint,
      S3_BUCKET: engines.s3!.bucket,
      S3_ACCESS_KEY_ID: engines.s3!.accessKeyId,
      S3_SECRET_ACCESS_KEY: engines.s3!.secretAccessKey,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  return { child, lines };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('kill tests (PostgreSQL + Redis + S3)', { skip }, () => {
  let engines: TestEngines;
  before(async () => {
    engines = await openTestEngines('real', { maxQueued: 1000, maxRendering: 1000 });
  });
  after(async () => {
    await engines?.close();
  });

  test('a dispatcher SIGKILLed mid-batch: every event reaches the queue exactly once', async () => {
    const queue = testQueue(engines) as BullmqTaskQueue;
    try {
      const ids = await seedJobs(engines, 150);
      const { child, lines } = startChild('dispatcher-child.ts', engines);
      try {
        await until(() => lines.filter((l) => l.startsWith('enqueued')).length >= 20);
      } finally {
        await kill(child);
      }
      const before = await pendingEventCount(engines.ctx.db);
      assert.ok(before > 0 && before < 150, `killed mid-way (${before} pending)`);
      await letOutboxDelaysPass(engines.ctx.db); // the dead dispatcher's claims expire
      const survivor = createDispatcher(engines.ctx.db, queue, quietLogger, { batchSize: 25 });
      await survivor.runOnce();
      assert.equal(await pendingEventCount(engines.ctx.db), 0);
      assert.equal(await queue.countTasks(), 150, 'one task per event in BullMQ');
      const tasks = await drain(queue, 150);
      assert.equal(tasks.length, 150);
      assert.deepEqual(new Set(tasks.map((t) => t.jobId)), new Set(ids));
    } finally {
      await queue.obliterate().catch(() => undefined);
      await queue.close();
      await engines.ctx.db.query('DELETE FROM render_jobs');
    }
  });

  test('a worker SIGKILLed mid-render: the reaper gives its job back to the queue, another worker completes it and the next job once', async () => {
    let app: FastifyInstance | undefined;
    const tempRoot = await mkdtemp(join(tmpdir(), 'render-kill-worker-'));
    // Dispatcher only in this process; the worker runs in the child.
    const processing = await startTestJobProcessing(engines, { startWorker: false });
    try {
      app = await buildTestApp(engines);
      const { child, lines } = startChild('worker-child.ts', engines, {
        BEATMAPS_DIR: madeOsuFixturesDir(),
        TEMP_ROOT: tempRoot,
      });
      await until(() => lines.includes('ready'));
      const first = (
        await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') })
      ).json().job_id as string;
      const second = (
        await submit(app, { address: freshAddress(), replay: readFixture('perfect.osr') })
      ).json().job_id as string;
      const job = (id: string) => async () =>
        (await app!.inject(`/v1/jobs/${id}`)).json() as {
          status: string;
          error: string | null;
          progress: number;
        };
      try {
        await waitForJob(job(first), (j) => j.status === 'rendering');
      } finally {
        await kill(child);
      }
      assert.equal((await job(first)()).status, 'rendering', 'killed mid-render');
      assert.equal((await job(second)()).status, 'queued');

      // The reaper gives the orphaned job back to the queue once its heartbeat is stale
      // (its clock runs ahead).
      const reaped = await reapOnce(engines.ctx.db, processing.queue, {
        stuckSeconds: 1,
        redispatchAfterSeconds: 600,
        maxDispatches: 3,
        now: () => Date.now() + 2000,
      });
      assert.equal(reaped.requeuedStuck, 1);
      assert.equal((await job(first)()).status, 'queued');

      // A new worker renders both: the orphaned job again (its new event), the waiting one once.
      await processing.dispatcher.stop();
      const fresh = await startTestJobProcessing(engines, { beatmapDirs: [madeOsuFixturesDir()] });
      try {
        for (const id of [first, second]) {
          const done = await waitForJob(
            job(id),
            (j) => j.status === 'completed' || j.status === 'failed',
            60_000,
          );
          assert.equal(done.status, 'completed', done.error ?? '');
        }
        const log = (await engines.ctx.store.get(`logs/${second}.log`)).toString();
        assert.equal(log.match(/ taken by /g)?.length, 1, 'rendered once');
        const events = await engines.ctx.db.query<{ job_id: string; n: number }>(
          'SELECT job_id::text, count(*)::int AS n FROM render_outbox GROUP BY job_id',
        );
        assert.deepEqual(
          Object.fromEntries(events.rows.map((r) => [r.job_id, Number(r.n)])),
          { [first]: 2, [second]: 1 },
          'one more outbox event for the orphaned job only',
        );
      } finally {
        await fresh.stop();
      }
    } finally {
      await app?.close();
      await processing.stop().catch(() => undefined);
      await rm(tempRoot, { recursive: true, force: true });
    }
  });
});

/** Seeds jobs with their outbox events, and drains a queue, for the dispatcher tests. */
import { randomUUID } from 'node:crypto';
import { advisoryLockKey, type SqlExecutor } from '@platform/core';
import { DEFAULT_RENDER_OPTIONS } from '../../src/admission/validate-render-form.js';
import { admitJob, type ReplayInfo } from '../../src/jobs/job-store.js';
import type { RenderTask, TaskQueue } from '../../src/queue/task-queue.js';
import type { TestEngines } from './harness.js';

// Seeded jobs are written the way admission writes them, with no per-address limit.
const UNLIMITED = { maxActive: 2 ** 31 - 1, dailyQuota: 2 ** 31 - 1 };

/** What a seeded job's replay header says. */
export const seededReplayInfo = (playerName = 'p'): ReplayInfo => ({
  playerName,
  beatmapMd5: 'e55b0e62414075cfe484bc0c82ea983e',
  mods: 'NM',
  score: 1,
  maxCombo: 1,
  perfect: true,
  n300: 1,
  n100: 0,
  n50: 0,
  gekis: 0,
  katus: 0,
  misses: 0,
  accuracy: 100,
  playedAt: '',
});

export async function seedJobs(engines: TestEngines, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  const lockKey = advisoryLockKey('render-address:192.0.2.1');
  await engines.ctx.db.transaction(async (tx) => {
    for (const id of ids) {
      await admitJob(tx, lockKey, UNLIMITED, {
        id,
        skin: 'Default',
        options: { ...DEFAULT_RENDER_OPTIONS },
        clientIp: '192.0.2.1',
        replayKey: `replays/${id}.osr`,
        replayInfo: seededReplayInfo(),
        fingerprint: `seeded-${id}`,
      });
    }
  });
  return ids;
}

/**
 * Drains the queue, returning every task taken. Every task the test is about was added
 * before the call, so once `expected` were taken and none is left waiting, closing the
 * consumer (which waits for the running handlers) leaves any duplicate in `taken`.
 */
export async function drain(queue: TaskQueue, expected: number): Promise<RenderTask[]> {
  const taken: RenderTask[] = [];
  const consumer = queue.consume(
    async (task) => {
      taken.push(task);
    },
    { concurrency: 4 },
  );
  const deadline = Date.now() + 15_000;
  while ((taken.length < expected || (await queue.waiting()) > 0) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  await consumer.close();
  return taken;
}

/**
 * Lets the outbox's delays pass at once: every claim has expired (`claimSeconds`) and every
 * retry delay (`retryDelaySeconds`) is over, as when that much time has gone by. Tests call
 * it instead of sleeping through a short delay, which a slow machine could also outlast
 * before the step meant to happen within it.
 */
export async function letOutboxDelaysPass(db: SqlExecutor): Promise<void> {
  await db.query(
    `UPDATE render_outbox
        SET claimed_until = CASE WHEN claimed_until IS NULL THEN NULL ELSE now() - interval '1 second' END,
            available_at = LEAST(available_at, now() - interval '1 second')
      WHERE dispatched_at IS NULL`,
  );
}

/** Seeds jobs with their outbox events, and drains a queue, for the dispatcher tests. */
import { randomUUID } from 'node:crypto';
import { DEFAULT_RENDER_OPTIONS } from '../../src/admission/validate-render-form.js';
import { insertJobWithEvent } from '../../src/jobs/job-store.js';
import type { RenderTask, TaskQueue } from '../../src/queue/task-queue.js';
import type { TestEngines } from './harness.js';

export async function seedJobs(engines: TestEngines, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await engines.ctx.db.transaction(async (tx) => {
    for (const id of ids) {
      await insertJobWithEvent(tx, {
        id,
        skin: 'Default',
        options: { ...DEFAULT_RENDER_OPTIONS },
        clientIp: '192.0.2.1',
        replayKey: `replays/${id}.osr`,
        replayInfo: {
          playerName: 'p',
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
        },
        fingerprint: `seeded-${id}`,
      });
    }
  });
  return ids;
}

/** Drains the queue, returning every task taken. */
export async function drain(
  queue: TaskQueue,
  expected: number,
  settleMs = 300,
): Promise<RenderTask[]> {
  const taken: RenderTask[] = [];
  const consumer = queue.consume(
    async (task) => {
      taken.push(task);
    },
    { concurrency: 4 },
  );
  const deadline = Date.now() + 15_000;
  while (taken.length < expected && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, settleMs)); // a duplicate would show up here
  await consumer.close();
  return taken;
}

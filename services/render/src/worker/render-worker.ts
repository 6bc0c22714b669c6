/** A worker: takes tasks from the queue and runs each render job. */
import { tmpdir } from 'node:os';
import type { TaskConsumer, TaskQueue } from '../queue/task-queue.js';
import { sweepStaleJobFolders } from './temp-folders.js';
import { runRenderJob, type TaskOutcome, type WorkerDeps } from './run-render-job.js';

export interface RenderWorker {
  stop(): Promise<void>;
}

export function startRenderWorker(
  deps: WorkerDeps,
  queue: TaskQueue,
  options: {
    concurrency: number;
    onOutcome?: (jobId: string, outcome: TaskOutcome, seconds: number) => void;
  },
): RenderWorker {
  // Leftovers of workers killed mid-render: older than any render may last, plus a margin.
  const tempRoot = deps.settings.tempRoot ?? tmpdir();
  void sweepStaleJobFolders(tempRoot, deps.settings.renderTimeoutMs + 10 * 60_000)
    .then(
      (removed) =>
        removed.length > 0 && deps.logger.info({ removed }, 'removed stale job temp folders'),
    )
    .catch((error) => deps.logger.warn({ err: error }, 'temp folder sweep failed'));
  const shutdown = new AbortController();
  const consumer: TaskConsumer = queue.consume(
    async (task) => {
      const started = performance.now();
      const outcome = await runRenderJob({ ...deps, shutdown: shutdown.signal }, task.jobId).catch(
        (error: unknown) => {
          // Its final write failed (the database gone): the job stays this worker's until
          // the reaper gives it back to the queue; the task fails in the queue.
          deps.logger.warn(
            { err: error, jobId: task.jobId },
            'render task ended without its final write',
          );
          throw error;
        },
      );
      if (outcome === 'skipped')
        deps.logger.info({ task }, 'task skipped: the job is no longer queued');
      options.onOutcome?.(task.jobId, outcome, (performance.now() - started) / 1000);
    },
    { concurrency: options.concurrency },
  );
  return {
    /** Stops taking tasks; running jobs are aborted and go back to the queue. */
    async stop() {
      shutdown.abort();
      await consumer.close();
    },
  };
}

/** A worker: takes tasks from the queue and runs each render job. */
import type { TaskConsumer, TaskQueue } from '../queue/task-queue.js';
import { runRenderJob, type TaskOutcome, type WorkerDeps } from './run-render-job.js';

export interface RenderWorker {
  stop(): Promise<void>;
}

export function startRenderWorker(
  deps: WorkerDeps,
  queue: TaskQueue,
  options: { concurrency: number; onOutcome?: (jobId: string, outcome: TaskOutcome, seconds: number) => void },
): RenderWorker {
  const consumer: TaskConsumer = queue.consume(
    async (task) => {
      const started = performance.now();
      const outcome = await runRenderJob(deps, task.jobId);
      if (outcome === 'skipped') deps.logger.info({ task }, 'task skipped: the job is no longer queued');
      options.onOutcome?.(task.jobId, outcome, (performance.now() - started) / 1000);
    },
    { concurrency: options.concurrency },
  );
  return { stop: () => consumer.close() };
}

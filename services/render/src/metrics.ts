/**
 * The render service's own Prometheus metrics, beside core's request histogram:
 * submissions by outcome, jobs by status (read from the database at scrape time),
 * renders by outcome with their duration, pending outbox events, and what the reaper did.
 */
import type { SqlDatabase } from '@platform/core';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { pendingEventCount } from './dispatcher/outbox-store.js';
import { JOB_STATUSES } from './jobs/job-store.js';

export interface RenderMetrics {
  submissions: Counter<'route' | 'status_code'>;
  renders: Histogram<'outcome'>;
  /** The reaper's actions: `requeued_stuck`, `failed_stuck`, `redispatched_lost`. */
  reaped: Counter<'action'>;
}

export function createRenderMetrics(registry: Registry, db: SqlDatabase): RenderMetrics {
  new Gauge({
    name: 'render_jobs',
    help: 'Render jobs by status.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM render_jobs GROUP BY status',
      );
      for (const status of JOB_STATUSES)
        this.set({ status }, Number(rows.find((r) => r.status === status)?.n ?? 0));
    },
  });
  new Gauge({
    name: 'render_outbox_pending',
    help: 'Outbox events not yet moved to the task queue.',
    registers: [registry],
    async collect() {
      this.set(await pendingEventCount(db));
    },
  });
  return {
    submissions: new Counter({
      name: 'render_submissions_total',
      help: 'Render submissions (v1 and legacy) by answer status.',
      labelNames: ['route', 'status_code'],
      registers: [registry],
    }),
    renders: new Histogram({
      name: 'render_job_duration_seconds',
      help: 'Time from a worker taking a job to its end, by outcome.',
      labelNames: ['outcome'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    }),
    reaped: new Counter({
      name: 'render_reaper_actions_total',
      help: 'Jobs the reaper acted on: requeued_stuck and failed_stuck (a worker lost mid-run, counted against MAX_DISPATCHES), redispatched_lost (a task the queue lost, not counted).',
      labelNames: ['action'],
      registers: [registry],
    }),
  };
}

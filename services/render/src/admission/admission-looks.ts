/**
 * Admission's first look (the global load and the address's usage), several submissions
 * to a statement: the looks asked for in one event-loop turn, and those arriving while a
 * statement is in flight, share one (migration 008), which counts the queue once for all
 * of them. The look is advisory, as before: `render_admit_job` counts the address again
 * under its lock, and the global limits are a look by design.
 */
import { MicroBatcher, type SqlExecutor } from '@platform/core';
import { loadAndUsageOf, type AddressUsage, type Load } from '../jobs/job-store.js';

export interface AdmissionLooks {
  look(clientIp: string): Promise<{ load: Load; usage: AddressUsage }>;
}

/** Addresses a statement carries at most (a bounded array parameter). */
const MAX_ADDRESSES = 500;

export function createAdmissionLooks(db: SqlExecutor, limits: Load): AdmissionLooks {
  const batcher = new MicroBatcher(
    (ips: string[]) => loadAndUsageOf(db, ips, limits),
    MAX_ADDRESSES,
  );
  return {
    async look(clientIp) {
      const [look] = await batcher.run([clientIp]);
      return look!;
    },
  };
}

/**
 * Job reads that miss the process's caches, coalesced: the reads of one event-loop turn,
 * and those arriving while a statement is in flight, share one statement. A burst of
 * first reads (pollers starting on new jobs, every job after its change) costs one round
 * trip and one result's parsing per batch instead of one per read; on PGlite, one
 * statement instead of many in its single session. Each read still returns the row as of
 * a statement that began after the read was asked for.
 */
import { MicroBatcher, type SqlExecutor } from '@platform/core';
import { getJobs, type JobRow } from './job-store.js';

export interface JobReader {
  get(id: string): Promise<JobRow | undefined>;
}

/** Ids a statement carries at most (a bounded array parameter). */
const MAX_IDS = 500;

export function createJobReader(db: SqlExecutor): JobReader {
  const batcher = new MicroBatcher<string, JobRow | undefined>(async (ids) => {
    const rows = await getJobs(db, [...new Set(ids)]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }, MAX_IDS);
  return {
    async get(id) {
      const [job] = await batcher.run([id]);
      return job;
    },
  };
}

/**
 * Admission's transaction, several submissions to a statement: those asking in one
 * event-loop turn, and those arriving while a statement is in flight, are admitted by one
 * render_admit_jobs call (migration 010), one round trip and one commit for all. Each
 * still resolves only once that statement has committed, so its 202 is never sent for a
 * job not yet durable. A refusal in a batch undoes nothing; a batch that fails (an error,
 * not a refusal) is rolled back whole and each of its submissions admitted alone, so one
 * failing submission fails only itself — unless the batch may have committed (its answer
 * was lost, or PGlite's WAL sync failed: `mayHaveCommitted`). Then each of its
 * submissions fails with that error, and admission asks whether its job is stored
 * (`stored`); admitted alone, a job the batch did write would be refused for its id, or
 * written a second time.
 */
import { mayHaveCommitted, MicroBatcher, type SqlExecutor } from '@platform/core';
import {
  admitJob,
  admitJobs,
  getJob,
  type AddressLimits,
  type AddressUsage,
  type Admission,
} from '../jobs/job-store.js';

export interface Admissions {
  /** Under the address's lock: the usage counted there, and whether the job was written. */
  admit(admission: Admission): Promise<{ usage: AddressUsage; inserted: boolean }>;
  /** Whether job `id` is stored: asked after an admission whose commit is in doubt. */
  stored(id: string): Promise<boolean>;
}

/**
 * Submissions a statement carries at most: every address lock of a batch is held until
 * it commits, so a bound keeps the time others wait for one of them short.
 */
const MAX_BATCH = 100;

type Outcome = { usage: AddressUsage; inserted: boolean } | { error: unknown };

export function createAdmissions(db: SqlExecutor, limits: AddressLimits): Admissions {
  const alone = (admission: Admission): Promise<Outcome> =>
    admitJob(db, admission.lockKey, limits, admission.job).catch((error: unknown) => ({ error }));
  const batcher = new MicroBatcher(async (admissions: Admission[]): Promise<Outcome[]> => {
    if (admissions.length === 1) return [await alone(admissions[0]!)];
    try {
      return await admitJobs(db, limits, admissions);
    } catch (error) {
      if (mayHaveCommitted(error)) return admissions.map(() => ({ error }));
      return Promise.all(admissions.map(alone));
    }
  }, MAX_BATCH);
  return {
    async admit(admission) {
      const [outcome] = await batcher.run([admission]);
      if ('error' in outcome!) throw outcome.error;
      return outcome!;
    },
    stored: async (id) => (await getJob(db, id)) !== undefined,
  };
}

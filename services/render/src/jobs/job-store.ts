/**
 * Data access for render jobs and their outbox events. Every function takes the SQL
 * handle first (the database or an open transaction); values always travel as parameters.
 */
import type { SqlDatabase, SqlExecutor } from '@platform/core';
import type { RenderOptions } from '@platform/osu';
import type { ExtraRenderOptions } from './extra-render-parameters.js';

export const JOB_STATUSES = ['queued', 'downloading', 'rendering', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Render options as stored with the job (the multipart fields after validation): the
 * renderer's own options, which the worker hands it as they are. The spec's, and the
 * extra ones (absent on jobs stored before they existed, which render with their defaults).
 */
export type RenderJobOptions = Pick<
  RenderOptions,
  | 'resolution'
  | 'bgDim'
  | 'motionBlur'
  | 'storyboard'
  | 'video'
  | 'snakingIn'
  | 'snakingOut'
  | 'hitErrorMeter'
  | 'keyOverlay'
> &
  Partial<ExtraRenderOptions>;

/** What the replay header says, kept for the job view. */
export interface ReplayInfo {
  playerName: string;
  beatmapMd5: string;
  mods: string;
  score: number;
  maxCombo: number;
  perfect: boolean;
  n300: number;
  n100: number;
  n50: number;
  gekis: number;
  katus: number;
  misses: number;
  accuracy: number;
  playedAt: string;
}

export interface JobRow {
  id: string;
  status: JobStatus;
  progress: number;
  skin: string;
  options: RenderJobOptions;
  client_ip: string;
  replay_key: string;
  replay_info: ReplayInfo;
  beatmap_md5: string;
  map_title: string | null;
  error: string | null;
  video_key: string | null;
  thumbnail_key: string | null;
  log_key: string | null;
  worker_id: string | null;
  /**
   * Runs granted: 1 at admission, one more each time a run a worker started is given back
   * (worker lost, or shutting down); `MAX_DISPATCHES` bounds it. A task the queue lost is
   * dispatched again without counting (the reaper).
   */
  dispatch_count: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  heartbeat_at: Date | null;
  /** Set when the job was deleted, cancelled or expired: a tombstone answering 410. */
  deleted_at: Date | null;
  removal: JobRemoval | null;
  /** SHA-256 of the replay bytes, skin and options: identical submissions share it. */
  fingerprint: string | null;
  artifacts_purged_at: Date | null;
}

/** Why a job's row is a tombstone. */
export type JobRemoval = 'deleted' | 'cancelled' | 'expired';

/** The statuses of a job that still has work ahead (counted as active). */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'downloading', 'rendering'];

export interface NewJob {
  id: string;
  skin: string;
  options: RenderJobOptions;
  clientIp: string;
  replayKey: string;
  replayInfo: ReplayInfo;
  fingerprint: string;
}

export const OUTBOX_CHANNEL = 'render_outbox';

/** The per-address limits admission enforces under the address's lock. */
export interface AddressLimits {
  maxActive: number;
  dailyQuota: number;
}

/**
 * Under the address's advisory lock (`lockKey`, from advisoryLockKey), counts the
 * address's usage again and, within `limits`, inserts the job, its first outbox event and
 * the dispatchers' wake-up (delivered at commit). One statement (the function of migration
 * 003): run on the database itself it is its own transaction, committed when this
 * resolves, in one round trip instead of five. Returns the usage counted under the lock
 * and whether the job was written.
 */
export async function admitJob(
  db: SqlExecutor,
  lockKey: string,
  limits: AddressLimits,
  job: NewJob,
): Promise<{ usage: AddressUsage; inserted: boolean }> {
  const { rows } = await db.query<UsageRow & { inserted: boolean }>(
    'SELECT * FROM render_admit_job($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
    [
      lockKey,
      limits.maxActive,
      limits.dailyQuota,
      job.id,
      job.skin,
      JSON.stringify(job.options),
      job.clientIp,
      job.replayKey,
      JSON.stringify(job.replayInfo),
      job.replayInfo.beatmapMd5,
      job.fingerprint,
      OUTBOX_CHANNEL,
    ],
  );
  return { usage: toUsage(rows[0]), inserted: rows[0]?.inserted === true };
}

/** One submission of a batch: its address's lock key (advisoryLockKey) and its job. */
export interface Admission {
  lockKey: string;
  job: NewJob;
}

/**
 * admitJob for several submissions in one statement and one transaction (migration 010):
 * every address's lock taken first in one order, then each submission counted and written
 * as admitJob would, in the order given. Results in that order. A refusal writes nothing
 * and undoes nothing; an error undoes the whole batch (the caller then admits each alone).
 */
export async function admitJobs(
  db: SqlExecutor,
  limits: AddressLimits,
  admissions: Admission[],
): Promise<Array<{ usage: AddressUsage; inserted: boolean }>> {
  const jobs = admissions.map((admission) => admission.job);
  const { rows } = await db.query<UsageRow & { n: number; inserted: boolean }>(
    `SELECT n, active, last_day, resets_at, inserted FROM render_admit_jobs(
       $1::bigint[], $2, $3, $4::uuid[], $5::text[], $6::jsonb[], $7::text[], $8::text[], $9::jsonb[],
       $10::text[], $11::text[], $12)`,
    [
      admissions.map((admission) => admission.lockKey),
      limits.maxActive,
      limits.dailyQuota,
      jobs.map((job) => job.id),
      jobs.map((job) => job.skin),
      jobs.map((job) => JSON.stringify(job.options)),
      jobs.map((job) => job.clientIp),
      jobs.map((job) => job.replayKey),
      jobs.map((job) => JSON.stringify(job.replayInfo)),
      jobs.map((job) => job.replayInfo.beatmapMd5),
      jobs.map((job) => job.fingerprint),
      OUTBOX_CHANNEL,
    ],
  );
  const results = new Array<{ usage: AddressUsage; inserted: boolean }>(admissions.length);
  for (const row of rows)
    results[Number(row.n) - 1] = { usage: toUsage(row), inserted: row.inserted === true };
  return results;
}

export async function insertOutboxEvent(tx: SqlExecutor, jobId: string): Promise<void> {
  await tx.query('INSERT INTO render_outbox (job_id) VALUES ($1)', [jobId]);
  await tx.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, jobId]);
}

export async function getJob(db: SqlExecutor, id: string): Promise<JobRow | undefined> {
  // A function with a kept plan (migration 004): this is every status read's query.
  const { rows } = await db.query<JobRow>('SELECT * FROM render_job($1)', [id]);
  return rows[0];
}

/** The jobs of `ids` that exist, in no particular order (one statement, migration 007). */
export async function getJobs(db: SqlExecutor, ids: string[]): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>('SELECT * FROM render_jobs_by_id($1::uuid[])', [ids]);
  return rows;
}

export interface ListJobsQuery {
  limit: number;
  offset: number;
  status?: JobStatus | undefined;
}

/** One page of jobs, newest first; tombstones (deleted, expired) are left out. */
export async function listJobs(db: SqlExecutor, query: ListJobsQuery): Promise<JobRow[]> {
  const filter = query.status
    ? 'WHERE deleted_at IS NULL AND status = $1'
    : 'WHERE deleted_at IS NULL';
  const params: unknown[] = query.status ? [query.status] : [];
  const n = params.length;
  const { rows } = await db.query<JobRow>(
    `SELECT * FROM render_jobs ${filter} ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, query.limit, query.offset],
  );
  return rows;
}

/** How many jobs there are (with that status, when given), tombstones left out. */
export async function countJobs(db: SqlExecutor, status?: JobStatus): Promise<number> {
  const { rows } = await db.query<{ total: string }>(
    `SELECT count(*)::text AS total FROM render_jobs WHERE deleted_at IS NULL ${status ? 'AND status = $1' : ''}`,
    status ? [status] : [],
  );
  return Number(rows[0]?.total ?? 0);
}

/** Queued jobs, and jobs downloading or rendering: the two global capacity figures. */
export interface Load {
  queued: number;
  rendering: number;
}

/** What one address has used: its active jobs, and its jobs created in the last 24 hours. */
export interface AddressUsage {
  active: number;
  lastDay: number;
  /** When the oldest job of the last 24 hours leaves the window (quota refill). */
  lastDayResetsAt: Date | null;
}

type UsageRow = { active: number; last_day: number; resets_at: Date | null };

const toUsage = (row: UsageRow | undefined): AddressUsage => ({
  active: Number(row?.active ?? 0),
  lastDay: Number(row?.last_day ?? 0),
  lastDayResetsAt: row?.resets_at ? new Date(row.resets_at) : null,
});

/**
 * The global load and the usage of each of `clientIps` in one round trip (admission's
 * first look, several submissions to a statement: admission/admission-looks.ts), in the
 * order given. Each load figure is counted only up to its limit (`limits`), which is all
 * admission compares it with, so the look costs the same however long the queue is.
 */
export async function loadAndUsageOf(
  db: SqlExecutor,
  clientIps: string[],
  limits: Load,
): Promise<Array<{ load: Load; usage: AddressUsage }>> {
  const { rows } = await db.query<UsageRow & Load>(
    `SELECT queued, rendering, active, last_day, resets_at
       FROM render_admission_looks($1::text[], $2, $3)`,
    [clientIps, limits.queued, limits.rendering],
  );
  return rows.map((row) => ({
    load: { queued: Number(row.queued), rendering: Number(row.rendering) },
    usage: toUsage(row),
  }));
}

/** Moves a job out of `queued` for one worker; undefined when another already has it. */
export async function claimJob(
  db: SqlExecutor,
  id: string,
  workerId: string,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `UPDATE render_jobs
        SET status = 'downloading', progress = 0, worker_id = $2, started_at = now(),
            heartbeat_at = now(), updated_at = now()
      WHERE id = $1 AND status = 'queued'
      RETURNING *`,
    [id, workerId],
  );
  return rows[0];
}

export interface JobUpdate {
  status?: JobStatus;
  progress?: number;
  mapTitle?: string;
  error?: string;
  videoKey?: string;
  thumbnailKey?: string;
  logKey?: string;
}

/**
 * Updates a running job owned by `workerId` (heartbeat included); false when the job is
 * no longer that worker's (the reaper failed it, for example).
 */
export async function updateRunningJob(
  db: SqlExecutor,
  id: string,
  workerId: string,
  update: JobUpdate,
): Promise<boolean> {
  const terminal = update.status === 'completed' || update.status === 'failed';
  const { rowCount } = await db.query(
    `UPDATE render_jobs
        SET status = COALESCE($3, status),
            progress = COALESCE($4, progress),
            map_title = COALESCE($5, map_title),
            error = COALESCE($6, error),
            video_key = COALESCE($7, video_key),
            thumbnail_key = COALESCE($8, thumbnail_key),
            log_key = COALESCE($9, log_key),
            finished_at = CASE WHEN $10::boolean THEN now() ELSE finished_at END,
            heartbeat_at = now(), updated_at = now()
      WHERE id = $1 AND worker_id = $2 AND status IN ('downloading', 'rendering')`,
    [
      id,
      workerId,
      update.status ?? null,
      update.progress ?? null,
      update.mapTitle ?? null,
      update.error ?? null,
      update.videoKey ?? null,
      update.thumbnailKey ?? null,
      update.logKey ?? null,
      terminal,
    ],
  );
  return rowCount > 0;
}

/**
 * Gives a running job back to the queue (its worker is shutting down): status `queued`
 * again, with a new outbox event in the same transaction. False when the job is no longer
 * that worker's.
 */
export async function requeueJob(db: SqlDatabase, id: string, workerId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE render_jobs
          SET status = 'queued', progress = 0, worker_id = NULL, started_at = NULL, heartbeat_at = NULL,
              dispatch_count = dispatch_count + 1, updated_at = now()
        WHERE id = $1 AND worker_id = $2 AND status IN ('downloading', 'rendering')`,
      [id, workerId],
    );
    if (rowCount > 0) await insertOutboxEvent(tx, id);
    return rowCount > 0;
  });
}

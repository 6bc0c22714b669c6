/**
 * `analytics build`: bronze → silver → gold → quality checks → serving tables and views,
 * each step reported with its row counts and time. The build runs on a copy in a scratch
 * folder next to the warehouse (starting from the current warehouse, so MERGE sees
 * earlier batches), in one transaction: bronze and silver are temporary tables of that
 * transaction, only gold is written to the file, with one checkpoint at the end. The
 * finished file replaces the live one in a single rename: readers never see a half-built
 * warehouse, and a failed build leaves the live one serving. A lock file keeps a second
 * build from running at the same time (and losing the first one's batch).
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  openDuckDb,
  type DuckDbSession,
  type Params,
  type Row,
} from '../warehouse/duckdb-session.js';
import { WAREHOUSE_FILE } from '../warehouse/paths.js';
import { loadBronze } from './bronze.js';
import { withBuildLock } from './build-lock.js';
import { buildGold } from './gold.js';
import { assertQuality, checkQuality, type QualityReport } from './quality.js';
import { buildSilver } from './silver.js';
import { buildServingTables } from './serving.js';
import { createViews } from './views.js';

/** A build's scratch folder beside the warehouse: `.build-<uuid>`. */
const SCRATCH_PREFIX = '.build-';

export interface StepReport {
  step: string;
  ms: number;
  rows: Record<string, number>;
}

export interface StatementReport {
  sql: string;
  ms: number;
  cpuMs: number;
}

export interface PipelineOptions {
  /** Folder with the five Olist CSV files. */
  sourceDir: string;
  /** The warehouse file to create or update (`…/raw_data.duckdb`). */
  warehouseFile: string;
  /** Called after each step, e.g. to print it. */
  onStep?: (report: StepReport) => void;
  /**
   * Called after each statement with its SQL, wall time and the process's CPU time
   * (user + system, DuckDB's threads included): the build's profile (`bench/build-profile.ts`).
   */
  onStatement?: (report: StatementReport) => void;
  /** DuckDB threads for the build. @defaultValue DuckDB's default (all cores) */
  threads?: number;
  /**
   * DuckDB's memory limit for the build; past it, work spills to the scratch folder.
   * @defaultValue `600MB` (the build process stays under 1 GiB at one million orders)
   */
  memoryLimit?: string;
}

export interface PipelineResult {
  /** This build's identity, as `gold.build_info` records it. */
  buildId: string;
  steps: StepReport[];
  quality: QualityReport;
  facts: { inserted: number; updated: number; unchanged: number };
  totalMs: number;
}

export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  await mkdir(dirname(options.warehouseFile), { recursive: true });
  return withBuildLock(options.warehouseFile, () => build(options));
}

async function build(options: PipelineOptions): Promise<PipelineResult> {
  const started = performance.now();
  const folder = dirname(options.warehouseFile);
  // Scratch copies of builds killed before their cleanup (kill -9, power loss), each a
  // whole copy of the warehouse: under the lock no other build is running, so every one
  // is a leftover (found by the analytics chaos run; nothing removed them before).
  for (const name of await readdir(folder))
    if (name.startsWith(SCRATCH_PREFIX))
      await rm(join(folder, name), { recursive: true, force: true });
  const scratch = join(folder, `${SCRATCH_PREFIX}${randomUUID()}`);
  await mkdir(scratch, { recursive: true });
  const buildFile = join(scratch, WAREHOUSE_FILE);
  try {
    if (existsSync(options.warehouseFile)) await copyFile(options.warehouseFile, buildFile);
    const settings: Record<string, string> = {
      memory_limit: options.memoryLimit ?? '600MB',
      temp_directory: join(scratch, 'spill'),
      preserve_insertion_order: 'true',
      // DuckDB's allocator keeps memory its finished tasks freed, up to 128 MB by default,
      // outside memory_limit: at one million orders that put the build's peak RSS over
      // 1 GiB. Handing it back past 32 MB, from the allocator's own background thread,
      // lowered the peak by about 155 MB at the same CPU (README, Benchmark).
      allocator_flush_threshold: '32MB',
      allocator_background_threads: 'true',
    };
    if (options.threads) settings.threads = String(options.threads);
    const opened = await openDuckDb(buildFile, { settings });
    const db = options.onStatement ? profiled(opened, options.onStatement) : opened;
    let result: Omit<PipelineResult, 'totalMs'>;
    try {
      await db.exec('BEGIN TRANSACTION');
      try {
        result = await buildInto(db, options);
        await db.exec('COMMIT');
      } catch (error) {
        await db.exec('ROLLBACK').catch(() => undefined);
        throw error;
      }
      await db.exec('CHECKPOINT');
    } finally {
      db.close();
    }
    await rename(buildFile, options.warehouseFile);
    return { ...result, totalMs: Math.round(performance.now() - started) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function buildInto(
  db: DuckDbSession,
  options: PipelineOptions,
): Promise<Omit<PipelineResult, 'totalMs'>> {
  const steps: StepReport[] = [];
  const step = async <T>(
    name: string,
    work: () => Promise<T>,
    rows: (value: T) => Record<string, number>,
  ) => {
    const started = performance.now();
    const value = await work();
    const report = { step: name, ms: Math.round(performance.now() - started), rows: rows(value) };
    steps.push(report);
    options.onStep?.(report);
    return value;
  };
  // UTC, as DuckDB reads a TIMESTAMP literal.
  const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
  const buildId = randomUUID();
  // Warehouses built before bronze and silver became temporary kept them in the file.
  await db.exec('DROP SCHEMA IF EXISTS bronze CASCADE; DROP SCHEMA IF EXISTS silver CASCADE');
  await step(
    'bronze',
    () => loadBronze(db, options.sourceDir),
    (rows) => rows,
  );
  await step(
    'silver',
    () => buildSilver(db),
    (rows) => rows,
  );
  const gold = await step(
    'gold',
    () => buildGold(db, now),
    (g) => ({
      ...g.counts,
      'fact_sales inserted': g.facts.inserted,
      'fact_sales updated': g.facts.updated,
      'fact_sales unchanged': g.facts.unchanged,
    }),
  );
  const quality = await step(
    'quality',
    () => checkQuality(db, { batch: true }),
    (q) => ({
      'checks passed': q.checks.filter((c) => c.passed).length,
      'checks failed': q.checks.filter((c) => !c.passed).length,
      ...q.reconciliation,
    }),
  );
  assertQuality(quality);
  await step(
    'views',
    async () => {
      const rows = await buildServingTables(db, { buildId, builtAt: now });
      await createViews(db);
      return rows;
    },
    (rows) => ({ views: 5, ...rows }),
  );
  return { buildId, steps, quality, facts: gold.facts };
}

/** One line per step, as the CLI and first start print them. */
export function formatStep(report: StepReport): string {
  const rows = Object.entries(report.rows)
    .map(([name, count]) => `${name}=${count}`)
    .join(' ');
  return `${report.step.padEnd(8)} ${String(report.ms).padStart(6)} ms  ${rows}`;
}

/** The session with each statement timed, wall and CPU, for `onStatement`. */
function profiled(db: DuckDbSession, report: (r: StatementReport) => void): DuckDbSession {
  const timed =
    <A extends unknown[], R>(run: (sql: string, ...rest: A) => Promise<R>) =>
    async (sql: string, ...rest: A): Promise<R> => {
      const wall = performance.now();
      const cpu = process.cpuUsage();
      try {
        return await run(sql, ...rest);
      } finally {
        const used = process.cpuUsage(cpu);
        report({ sql, ms: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 });
      }
    };
  const all = timed(db.all);
  return {
    ...db,
    exec: timed(db.exec),
    all: <T extends Row>(sql: string, params?: Params) => all(sql, params) as Promise<T[]>,
  };
}

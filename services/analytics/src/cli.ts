/**
 * The `analytics` command.
 *   analytics generate --out DIR [--orders N] [--seed S]   synthetic data set in the Olist format
 *   analytics build --source DIR [--data-dir DIR]          bronze → silver → gold → views
 *   analytics export --to DIR|s3://bucket/prefix [--data-dir DIR]   gold as Parquet + manifest
 * The warehouse goes to `DATA_DIR/analytics/raw_data.duckdb` (`--data-dir` or env
 * `DATA_DIR`, default `./data`). Returns the exit code: 0 ok, 1 failed, 2 bad usage.
 */
import { parseArgs } from 'node:util';
import { createObjectStore, isDiskFailure } from '@platform/core';
import { ExportTargetError, exportGold, type ExportTarget } from './export/export-gold.js';
import { generateDataset } from './generate/generate-dataset.js';
import { PipelineError } from './pipeline/pipeline-error.js';
import { formatStep, runPipeline } from './pipeline/run-pipeline.js';
import { warehousePath } from './warehouse/paths.js';

const USAGE = `usage:
  analytics generate --out DIR [--orders N] [--seed S]
  analytics build --source DIR [--data-dir DIR]
  analytics export --to DIR|s3://bucket/prefix [--data-dir DIR]`;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
}

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'generate') return await generate(rest, io);
    if (command === 'build') return await build(rest, io);
    if (command === 'export') return await exportCommand(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`analytics: ${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof ExportTargetError) {
      io.err(`analytics: export failed: ${error.message}`);
      return 1;
    }
    if (error instanceof PipelineError) {
      io.err(`analytics: build failed: ${error.message}`);
      if (error.report) io.err(JSON.stringify(error.report, null, 2));
      return 1;
    }
    // A full or failing disk is the machine's state, not a bug: one line, no stack (the
    // build's copy step fails with Node's ENOSPC before DuckDB writes anything).
    if (isDiskFailure(error)) {
      io.err(
        `analytics: ${command} failed: the disk under DATA_DIR is full or failing (${(error as Error).message})`,
      );
      return 1;
    }
    throw error;
  }
  io.err(command ? `analytics: unknown command ${JSON.stringify(command)}\n${USAGE}` : USAGE);
  return 2;
}

class UsageError extends Error {}

function parse(args: string[], options: Record<string, { type: 'string' }>) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<
      string,
      string | undefined
    >;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function positiveInt(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${name} expects an integer >= ${min} (got ${JSON.stringify(value)})`);
  }
  return Number(value);
}

async function generate(args: string[], io: CliIo): Promise<number> {
  const values = parse(args, {
    out: { type: 'string' },
    orders: { type: 'string' },
    seed: { type: 'string' },
  });
  if (!values.out) throw new UsageError('generate needs --out DIR');
  const orders = positiveInt('orders', values.orders, 20_000);
  const seed = positiveInt('seed', values.seed, 42, 0);
  const started = performance.now();
  const result = await generateDataset({ outDir: values.out, orders, seed });
  const ms = Math.round(performance.now() - started);
  for (const [file, rows] of Object.entries(result.files))
    io.out(`generate ${file.padEnd(40)} ${rows} rows`);
  io.out(`generate done in ${ms} ms: ${orders} orders, seed ${seed}, in ${values.out}`);
  return 0;
}

async function build(args: string[], io: CliIo): Promise<number> {
  const values = parse(args, { source: { type: 'string' }, 'data-dir': { type: 'string' } });
  if (!values.source) throw new UsageError('build needs --source DIR');
  const dataDir = values['data-dir'] ?? io.env.DATA_DIR ?? './data';
  const result = await runPipeline({
    sourceDir: values.source,
    warehouseFile: warehousePath(dataDir),
    onStep: (step) => io.out(formatStep(step)),
  });
  io.out(`build done in ${result.totalMs} ms: ${warehousePath(dataDir)}`);
  return 0;
}

async function exportCommand(args: string[], io: CliIo): Promise<number> {
  const values = parse(args, { to: { type: 'string' }, 'data-dir': { type: 'string' } });
  if (!values.to) throw new UsageError('export needs --to DIR or --to s3://bucket/prefix');
  const dataDir = values['data-dir'] ?? io.env.DATA_DIR ?? './data';
  const target = exportTarget(values.to, io.env);
  const started = performance.now();
  let manifest;
  try {
    manifest = await exportGold(warehousePath(dataDir), target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !(error instanceof ExportTargetError))
      throw new ExportTargetError(
        `no warehouse at ${warehousePath(dataDir)}; run analytics build first`,
      );
    throw error;
  } finally {
    if (target.kind === 'store') await target.store.close();
  }
  for (const [table, { rows, files }] of Object.entries(manifest.tables))
    io.out(
      `export ${table.padEnd(28)} ${String(rows).padStart(9)} rows in ${files.length} file(s)`,
    );
  io.out(
    `export done in ${Math.round(performance.now() - started)} ms: build ${manifest.build_id ?? 'unknown'} to ${values.to}`,
  );
  return 0;
}

/** `s3://bucket/prefix` (endpoint, region and keys from the S3_* settings) or a folder. */
function exportTarget(to: string, env: CliIo['env']): ExportTarget {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(to)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'dir', dir: to };
  if (scheme !== 's3')
    throw new UsageError(`--to takes a folder or s3://bucket/prefix (got ${scheme}://)`);
  // Checked on the text as given: URL parsing would resolve `a/../b` to `b` silently.
  if (/(^|\/)\.\.?(\/|$)/.test(to.slice('s3://'.length)))
    throw new UsageError('--to s3:// prefix must not contain . or .. segments');
  const url = new URL(to);
  const bucket = url.hostname;
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  if (!bucket) throw new UsageError('--to s3:// needs a bucket: s3://bucket/prefix');
  const credentials =
    env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
      ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
      : undefined;
  const store = createObjectStore({
    s3: {
      bucket,
      region: env.S3_REGION ?? 'us-east-1',
      ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
      ...(env.S3_FORCE_PATH_STYLE ? { forcePathStyle: env.S3_FORCE_PATH_STYLE !== 'false' } : {}),
      ...(credentials ? { credentials } : {}),
    },
  });
  return { kind: 'store', store, prefix };
}

/**
 * The `analytics` command.
 *   analytics generate --out DIR [--orders N] [--seed S]   synthetic data set in the Olist format
 *   analytics build --source DIR [--data-dir DIR]          bronze → silver → gold → views
 * The warehouse goes to `DATA_DIR/analytics/raw_data.duckdb` (`--data-dir` or env
 * `DATA_DIR`, default `./data`). Returns the exit code: 0 ok, 1 failed, 2 bad usage.
 */
import { parseArgs } from 'node:util';
import { generateDataset } from './generate/generate-dataset.js';
import { PipelineError } from './pipeline/pipeline-error.js';
import { formatStep, runPipeline } from './pipeline/run-pipeline.js';
import { warehousePath } from './warehouse/paths.js';

const USAGE = `usage:
  analytics generate --out DIR [--orders N] [--seed S]
  analytics build --source DIR [--data-dir DIR]`;

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
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`analytics: ${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof PipelineError) {
      io.err(`analytics: build failed: ${error.message}`);
      if (error.report) io.err(JSON.stringify(error.report, null, 2));
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

/**
 * First start: when no warehouse exists under DATA_DIR, build one — from
 * `ANALYTICS_SOURCE_DIR` when set, else from a synthetic data set generated into
 * `DATA_DIR/analytics/generated-source/` — logging each step with row counts and timings.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@platform/core';
import { generateDataset } from '../generate/generate-dataset.js';
import { formatStep, runPipeline } from '../pipeline/run-pipeline.js';
import { warehouseDir, warehousePath } from '../warehouse/paths.js';

export interface EnsureWarehouseOptions {
  dataDir: string;
  logger: Logger;
  /** Olist CSV folder; unset: generate one. */
  sourceDir?: string;
  /** @defaultValue 20000 */
  orders?: number;
  /** @defaultValue 42 */
  seed?: number;
}

/** Returns true when it built a warehouse, false when one already existed. */
export async function ensureWarehouse(options: EnsureWarehouseOptions): Promise<boolean> {
  const file = warehousePath(options.dataDir);
  if (existsSync(file)) return false;
  const { logger } = options;
  let sourceDir = options.sourceDir;
  if (!sourceDir) {
    sourceDir = join(warehouseDir(options.dataDir), 'generated-source');
    const orders = options.orders ?? 20_000;
    const started = performance.now();
    const generated = await generateDataset({
      outDir: sourceDir,
      orders,
      seed: options.seed ?? 42,
    });
    const ms = Math.round(performance.now() - started);
    const rows = Object.entries(generated.files)
      .map(([f, n]) => `${f}=${n}`)
      .join(' ');
    logger.info(
      { step: 'generate', ms, rows: generated.files },
      `generate ${String(ms).padStart(6)} ms  ${rows}`,
    );
  }
  logger.info({ sourceDir, file }, 'building the warehouse (first start)');
  const result = await runPipeline({
    sourceDir,
    warehouseFile: file,
    onStep: (step) =>
      logger.info({ step: step.step, ms: step.ms, rows: step.rows }, formatStep(step)),
  });
  logger.info({ ms: result.totalMs, file }, `warehouse built in ${result.totalMs} ms`);
  return true;
}

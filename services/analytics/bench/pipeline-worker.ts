/**
 * Runs one pipeline build in its own process and prints one JSON line: time, steps and
 * the process's peak RSS (DuckDB's native memory included). Used by the benchmark.
 *   node --import tsx bench/pipeline-worker.ts SOURCE_DIR WAREHOUSE_FILE
 */
import { configureBuildAllocator } from '../src/pipeline/build-allocator.js';

const [sourceDir, warehouseFile] = process.argv.slice(2);
if (!sourceDir || !warehouseFile) {
  process.stderr.write('usage: pipeline-worker SOURCE_DIR WAREHOUSE_FILE\n');
  process.exit(2);
}
// First, as in `analytics build` (cli-entry.ts): DuckDB's allocator settings apply at load.
configureBuildAllocator(sourceDir);
const { runPipeline } = await import('../src/pipeline/run-pipeline.js');
const result = await runPipeline({ sourceDir, warehouseFile });
process.stdout.write(
  `${JSON.stringify({
    totalMs: result.totalMs,
    steps: result.steps.map((s) => ({ step: s.step, ms: s.ms })),
    facts: result.facts,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);

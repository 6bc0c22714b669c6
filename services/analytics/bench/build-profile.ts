/**
 * The build's profile: runs one build and prints each statement's wall and CPU time
 * (the process's user + system, DuckDB's threads included), in order, then the totals.
 * CPU over wall shows how much of a statement ran on more than one core; "busiest thread"
 * is the CPU of the statement's busiest thread (from /proc/self/task/<tid>/schedstat), so
 * the sum of it over statements is the build's critical path on an idle machine with as
 * many cores as threads, a figure other processes' load hardly moves. "rss" is the
 * highest resident set sampled during the statement (every 10 ms, /proc/self/statm) and
 * "spill" the most DuckDB had spilled to the scratch folder meanwhile (every 100 ms): where
 * the build's peak RSS is reached, and what spilled to keep it there.
 *   node --import tsx bench/build-profile.ts SOURCE_DIR WAREHOUSE_FILE [--rerun]
 * The warehouse file is removed first (a first build) unless `--rerun` is given: then an
 * existing warehouse is built over (the MERGE path of an incremental batch or a re-run).
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configureBuildAllocator } from '../src/pipeline/build-allocator.js';
import type { StatementReport } from '../src/pipeline/run-pipeline.js';

const [sourceDir, warehouseFile, mode] = process.argv.slice(2);
if (!sourceDir || !warehouseFile || (mode !== undefined && mode !== '--rerun')) {
  process.stderr.write('usage: build-profile SOURCE_DIR WAREHOUSE_FILE [--rerun]\n');
  process.exit(2);
}
// First, as in `analytics build` (cli-entry.ts): DuckDB's allocator settings apply at load.
configureBuildAllocator(sourceDir);
const { runPipeline } = await import('../src/pipeline/run-pipeline.js');
if (mode !== '--rerun') rmSync(warehouseFile, { force: true });
const PAGE_MB = 4096 / 2 ** 20;
/** Resident set now, MB (statm's second field, in pages). */
const rssMb = () => Number(readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * PAGE_MB;
/** Bytes in the build's spill folders (`.build-*\/spill`), MB. */
function spillMb(): number {
  const folder = dirname(warehouseFile!);
  let bytes = 0;
  try {
    for (const scratch of readdirSync(folder).filter((n) => n.startsWith('.build-'))) {
      const spill = join(folder, scratch, 'spill');
      for (const name of readdirSync(spill)) bytes += statSync(join(spill, name)).size;
    }
  } catch {
    // no spill folder (yet), or a file removed meanwhile
  }
  return bytes / 2 ** 20;
}
let statementRss = 0;
let statementSpill = 0;
const rssSampler = setInterval(() => (statementRss = Math.max(statementRss, rssMb())), 10);
const spillSampler = setInterval(() => (statementSpill = Math.max(statementSpill, spillMb())), 100);
const peaks: { rss: number; spill: number }[] = [];
/** CPU ms of each thread of this process so far. */
function threadCpu(): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      cpu.set(
        tid,
        Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6,
      );
    } catch {
      // the thread ended meanwhile
    }
  }
  return cpu;
}
let before = threadCpu();
const busiest: number[] = [];
const statements: StatementReport[] = [];
const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const started = { wall: performance.now(), cpu: cpu() };
await runPipeline({
  sourceDir,
  warehouseFile,
  onStatement: (s) => {
    const after = threadCpu();
    busiest.push(Math.max(0, ...[...after].map(([tid, ms]) => ms - (before.get(tid) ?? 0))));
    statements.push(s);
    peaks.push({ rss: Math.max(statementRss, rssMb()), spill: statementSpill });
    statementRss = 0;
    statementSpill = 0;
    before = threadCpu();
  },
});
clearInterval(rssSampler);
clearInterval(spillSampler);
const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 90);
for (const [i, s] of statements.entries())
  process.stdout.write(
    `${s.ms.toFixed(0).padStart(6)} ms ${s.cpuMs.toFixed(0).padStart(6)} cpu ${busiest[i]!.toFixed(0).padStart(6)} busiest ${peaks[i]!.rss.toFixed(0).padStart(5)} rss ${peaks[i]!.spill.toFixed(0).padStart(5)} spill  ${label(s.sql)}\n`,
  );
const sum = (pick: (s: StatementReport) => number) =>
  statements.reduce((total, s) => total + pick(s), 0).toFixed(0);
process.stdout.write(
  `statements ${sum((s) => s.ms)} ms ${sum((s) => s.cpuMs)} cpu ${busiest.reduce((a, b) => a + b, 0).toFixed(0)} busiest thread; whole build ${(performance.now() - started.wall).toFixed(0)} ms ${(cpu() - started.cpu).toFixed(0)} cpu; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
);

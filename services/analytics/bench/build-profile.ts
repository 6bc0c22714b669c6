/**
 * The build's profile: runs one build and prints each statement's wall and CPU time
 * (the process's user + system, DuckDB's threads included), in order, then the totals.
 * CPU over wall shows how much of a statement ran on more than one core; "busiest thread"
 * is the CPU of the statement's busiest thread (from /proc/self/task/<tid>/schedstat), so
 * the sum of it over statements is the build's critical path on an idle machine with as
 * many cores as threads, a figure other processes' load hardly moves.
 *   node --import tsx bench/build-profile.ts SOURCE_DIR WAREHOUSE_FILE
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { runPipeline, type StatementReport } from '../src/pipeline/run-pipeline.js';

const [sourceDir, warehouseFile] = process.argv.slice(2);
if (!sourceDir || !warehouseFile) {
  process.stderr.write('usage: build-profile SOURCE_DIR WAREHOUSE_FILE\n');
  process.exit(2);
}
rmSync(warehouseFile, { force: true });
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
    before = threadCpu();
  },
});
const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 90);
for (const [i, s] of statements.entries())
  process.stdout.write(
    `${s.ms.toFixed(0).padStart(6)} ms ${s.cpuMs.toFixed(0).padStart(6)} cpu ${busiest[i]!.toFixed(0).padStart(6)} busiest  ${label(s.sql)}\n`,
  );
const sum = (pick: (s: StatementReport) => number) =>
  statements.reduce((total, s) => total + pick(s), 0).toFixed(0);
process.stdout.write(
  `statements ${sum((s) => s.ms)} ms ${sum((s) => s.cpuMs)} cpu ${busiest.reduce((a, b) => a + b, 0).toFixed(0)} busiest thread; whole build ${(performance.now() - started.wall).toFixed(0)} ms ${(cpu() - started.cpu).toFixed(0)} cpu; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
);

/**
 * A child process for `build-allocator.test.ts`: loads DuckDB (after
 * `configureBuildAllocator(argv[3])` when argv[2] is `build`, as `analytics build` does), makes DuckDB allocate and free a
 * few hundred MB (a table and a hash aggregate over it, then the table dropped) and prints
 * `{"before": MB, "after": MB}`: the resident set before and right after.
 */
import { readFileSync } from 'node:fs';

const rssMb = () =>
  (Number(readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * 4096) / 2 ** 20;
if (process.argv[2] === 'build') {
  const { configureBuildAllocator } = await import('../../src/pipeline/build-allocator.js');
  configureBuildAllocator(process.argv[3]!);
}
const { openDuckDb } = await import('../../src/warehouse/duckdb-session.js');
const db = await openDuckDb(':memory:', { settings: { threads: '2' } });
await db.all('SELECT 1');
const before = rssMb();
await db.exec('CREATE TABLE t AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(600000)');
await db.all('SELECT count(*) FROM (SELECT s, count(*) FROM t GROUP BY s)');
await db.exec('DROP TABLE t');
const after = rssMb();
db.close();
process.stdout.write(
  `${JSON.stringify({ before: Math.round(before), after: Math.round(after) })}\n`,
);

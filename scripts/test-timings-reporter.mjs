// A `node --test` reporter that writes, once the run ends, each test file's wall time,
// slowest first, one line each: where the suite's minutes go. `scripts/run-tests.mjs`
// adds it beside the spec reporter when TEST_TIMINGS_FILE is set. Node 20 reports each
// file as a top-level test named by its path, so that test's duration is the file's.
import { relative } from 'node:path';
import { testSourcePath } from './test-source-path.mjs';

export default async function* timings(source) {
  const seconds = new Map();
  for await (const { type, data } of source) {
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && data.file) {
      const file = relative(process.cwd(), testSourcePath(data.file));
      seconds.set(file, (seconds.get(file) ?? 0) + (data.details?.duration_ms ?? 0) / 1000);
    }
  }
  const rows = [...seconds].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, s]) => sum + s, 0);
  yield `file seconds, slowest first (sum ${total.toFixed(0)} s over ${rows.length} files)\n`;
  for (const [file, s] of rows) yield `${s.toFixed(1).padStart(7)}  ${file}\n`;
}

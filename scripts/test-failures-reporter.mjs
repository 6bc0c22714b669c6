// A `node --test` reporter that writes one JSON line per failing test: the file, the
// test's full name (its suites joined by " > ") and why it failed. `scripts/run-tests.mjs`
// adds it beside the spec reporter when TEST_FAILURES_FILE is set; `scripts/test-repeat.mjs`
// counts the lines over many runs. A suite that failed only because a test inside it
// failed is not written (the test is).
import { relative } from 'node:path';
import { testSourcePath } from './test-source-path.mjs';

export default async function* failures(source) {
  // Per file, the names of the tests currently open at each nesting level.
  const open = new Map();
  const pathOf = (data) => {
    const stack = open.get(data.file) ?? [];
    stack.length = data.nesting;
    const names = [...stack, data.name].filter((name) => name !== data.file);
    return names.join(' > ');
  };
  for await (const event of source) {
    const { data } = event;
    if (event.type === 'test:start') {
      const stack = open.get(data.file) ?? [];
      stack[data.nesting] = data.name;
      stack.length = data.nesting + 1;
      open.set(data.file, stack);
    } else if (event.type === 'test:fail') {
      const error = data.details?.error;
      if (error?.failureType === 'subtestsFailed') continue;
      const cause = error?.cause ?? error;
      const message = String(cause?.message ?? cause ?? 'failed').split('\n')[0];
      yield `${JSON.stringify({
        file: data.file ? relative(process.cwd(), testSourcePath(data.file)) : undefined,
        test: pathOf(data),
        failureType: error?.failureType,
        message: message.slice(0, 300),
      })}\n`;
    }
  }
}

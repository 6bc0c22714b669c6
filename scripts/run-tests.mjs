#!/usr/bin/env node
// Runs the test suite with Node's own test runner in one invocation, so the run ends
// with a single summary. Node 20's `--test` does not expand globs, so this script
// finds `test/**/*.test.ts` in each workspace (or in the folders given as arguments).
//
//   node scripts/run-tests.mjs                 every workspace
//   node scripts/run-tests.mjs services/render one workspace (its `npm test`)
//   TEST_FILTER=broker node scripts/run-tests.mjs   only files whose path contains "broker"
//   TEST_FAILURES_FILE=f.jsonl ...                  also writes each failing test to f.jsonl
//                                                   (scripts/test-failures-reporter.mjs)
//   TEST_TIMINGS_FILE=t.txt ...                     also writes each file's time to t.txt,
//                                                   slowest first (scripts/test-timings-reporter.mjs)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const workspaces = args.length
  ? args.map((dir) => resolve(process.cwd(), dir))
  : ['packages', 'services'].flatMap((group) => {
      const dir = join(root, group);
      return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
    });

function findTests(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filter = process.env.TEST_FILTER;
const files = workspaces
  .flatMap((ws) => findTests(join(ws, 'test')))
  .filter((file) => !filter || file.includes(filter))
  .sort();

if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
console.log(`run-tests: ${files.length} test files`);
for (const file of files) console.log(`  ${relative(root, file)}`);

// Three files at once on 2 cores: most test time is spent waiting on engines, child
// processes and browsers, and the suite (1,062 tests) took 18 minutes at two.
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const extraReporters = [
  ['test-failures-reporter.mjs', process.env.TEST_FAILURES_FILE],
  ['test-timings-reporter.mjs', process.env.TEST_TIMINGS_FILE],
].filter(([, destination]) => destination);
const reporters = [
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  ...extraReporters.flatMap(([script, destination]) => [
    `--test-reporter=${pathToFileURL(join(root, 'scripts', script)).href}`,
    `--test-reporter-destination=${resolve(destination)}`,
  ]),
];
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    // Passed on to each test file's process (see the script).
    '--import',
    pathToFileURL(join(root, 'scripts', 'test-exit-guard.mjs')).href,
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? 300000}`,
    ...reporters,
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));

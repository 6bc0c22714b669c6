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
//   TEST_CPU_FILE=c.txt ...                         also appends each file's CPU seconds (its own
//                                                   and its waited children's) to c.txt
//                                                   (scripts/test-exit-guard.mjs)
//   TEST_LIST_ONLY=1 ...                            prints the files in start order, runs none
//   TEST_BUNDLE=0 ...                               runs the TypeScript sources under tsx instead
//                                                   of bundles (a stack then has source lines)
//
// Files start in the order of scripts/slow-tests.txt first (the slowest files), then the
// rest by path: node --test starts files in the order given, so a slow file started last
// would run alone at the end while the other slots stand idle.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unsupportedNodeReason } from './supported-node.mjs';

// One line on a Node the suite does not run on, instead of its failures (the script says why).
const unsupported = unsupportedNodeReason();
if (unsupported) {
  console.error(`run-tests: ${unsupported}`);
  process.exit(1);
}

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

/** Paths (from the root) of the known-slow files, in the order they should start. */
function slowFirst() {
  const list = join(root, 'scripts', 'slow-tests.txt');
  if (!existsSync(list)) return [];
  const paths = readFileSync(list, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
  for (const path of paths)
    if (!existsSync(join(root, path)))
      console.error(`run-tests: scripts/slow-tests.txt names ${path}, which does not exist`);
  return paths;
}

const filter = process.env.TEST_FILTER;
const rank = new Map(slowFirst().map((path, index) => [resolve(root, path), index]));
const files = workspaces
  .flatMap((ws) => findTests(join(ws, 'test')))
  .filter((file) => !filter || file.includes(filter))
  .sort((a, b) => (rank.get(a) ?? rank.size) - (rank.get(b) ?? rank.size) || (a < b ? -1 : 1));

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
// TEST_LIST_ONLY=1: print the files in the order they would start, run nothing.
if (process.env.TEST_LIST_ONLY) process.exit(0);

// Each file runs from a bundle (packages/testing `bundleTestFiles`): plain node runs it
// without tsx's loader, which cost every file's process about a second of CPU.
const bundled = process.env.TEST_BUNDLE !== '0';
const runFiles = bundled ? await bundle(files) : files;

async function bundle(sources) {
  const outDir = join(root, 'node_modules', '.cache', 'test-bundles', String(process.pid));
  rmSync(outDir, { recursive: true, force: true });
  process.on('exit', () => rmSync(outDir, { recursive: true, force: true }));
  const { register } = await import('tsx/esm/api');
  const unregister = register();
  const entry = pathToFileURL(join(root, 'packages', 'testing', 'src', 'bundled-entry.ts'));
  const { bundleTestFiles } = await import(entry.href);
  await unregister();
  return bundleTestFiles(sources, root, outDir);
}
const child = spawn(
  process.execPath,
  [
    ...(bundled ? [] : ['--import', 'tsx']),
    // Passed on to each test file's process (see the script).
    '--import',
    pathToFileURL(join(root, 'scripts', 'test-exit-guard.mjs')).href,
    // Also passed on: PGlite's WebAssembly stays on V8's baseline compiler (Liftoff). A
    // test file's process lives seconds, and the optimising tier-up of PostgreSQL's hot
    // functions cost more CPU than it saved there: a PGlite start took about 1.3 s more
    // of the file's CPU, and the whole suite a ninth more (root README). Services keep
    // V8's default: the processes a test starts do not get the flag.
    '--liftoff-only',
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? 300000}`,
    ...reporters,
    ...runFiles,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ...(process.env.TEST_CPU_FILE && { TEST_CPU_FILE: resolve(process.env.TEST_CPU_FILE) }),
    },
  },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));

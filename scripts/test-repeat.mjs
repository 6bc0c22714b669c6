#!/usr/bin/env node
// Runs the test suite N times, each from a clean state, and prints every test that failed
// with how many runs it failed in: chance failures show up as counts below N.
//
//   npm run test:repeat -- 5                          the whole suite, 5 times
//   TEST_CONCURRENCY=4 npm run test:repeat -- 5       more test files at once than the default
//   npm run test:repeat -- 3 services/integration     only some workspaces (run-tests arguments)
//
// Clean state: each run has a temp folder of its own (TMPDIR, removed afterwards), so no
// run sees the files, databases of embedded engines or sockets a previous run left; the
// shared engines are not touched (tests use unique names there). Each run's full output is
// kept in .tmp/test-repeat/<time>/run-<i>.log; the exit code is 1 when any run failed.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const [countArg, ...runTestsArgs] = process.argv.slice(2);
const runs = Number(countArg ?? 5);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: npm run test:repeat -- N [workspace folders...]  (N a whole number ≥ 1)');
  process.exit(2);
}

const logDir = join(root, '.tmp', 'test-repeat', new Date().toISOString().replace(/[:.]/g, '-'));
await mkdir(logDir, { recursive: true });
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
console.log(
  `test:repeat: ${runs} runs, TEST_CONCURRENCY=${concurrency}` +
    `${runTestsArgs.length ? `, ${runTestsArgs.join(' ')}` : ', every workspace'}; logs in ${relative(root, logDir)}`,
);

/** test key → { count, messages } */
const failures = new Map();
let failedRuns = 0;
for (let run = 1; run <= runs; run++) {
  const temp = await mkdtemp(join(tmpdir(), `test-repeat-${run}-`));
  // mkdtemp makes it 0700; engines the tests start as another user (initdb runs as
  // postgres when the suite runs as root) must reach their folders inside it, as in /tmp.
  await chmod(temp, 0o1777);
  const failuresFile = join(logDir, `run-${run}.failures.jsonl`);
  const logFile = join(logDir, `run-${run}.log`);
  const started = Date.now();
  const code = await runOnce(logFile, {
    ...process.env,
    TMPDIR: temp,
    TEST_FAILURES_FILE: failuresFile,
  });
  await rm(temp, { recursive: true, force: true });
  const failed = existsSync(failuresFile)
    ? readFileSync(failuresFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  for (const failure of failed) {
    const key = `${failure.file ?? '?'} :: ${failure.test}`;
    const entry = failures.get(key) ?? { count: 0, messages: new Set() };
    entry.count += 1;
    entry.messages.add(failure.message);
    failures.set(key, entry);
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  // A run can fail without a failing test (a file that could not start): count it too.
  if (code !== 0 || failed.length > 0) failedRuns += 1;
  console.log(
    `run ${run}/${runs}: ${code === 0 && failed.length === 0 ? 'passed' : `FAILED (exit ${code}, ${failed.length} failing tests)`} in ${seconds} s`,
  );
}

console.log(`\ntest:repeat: ${runs - failedRuns} of ${runs} runs passed`);
if (failures.size > 0) {
  console.log('failing tests (runs failed in / runs):');
  for (const [key, { count, messages }] of [...failures].sort((a, b) => b[1].count - a[1].count)) {
    console.log(`  ${count}/${runs}  ${key}`);
    for (const message of messages) console.log(`          ${message}`);
  }
}
process.exit(failedRuns > 0 ? 1 : 0);

function runOnce(logFile, env) {
  return new Promise((resolvePromise) => {
    const log = createWriteStream(logFile);
    const child = spawn(
      process.execPath,
      [join(root, 'scripts', 'run-tests.mjs'), ...runTestsArgs],
      {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('close', (code, signal) => {
      log.end(() => resolvePromise(signal ? 1 : (code ?? 1)));
    });
  });
}

// The root test runner (`scripts/run-tests.mjs`) on a workspace of its own: a run passes
// only when every test that was meant to run did run and pass.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

const runner = fileURLToPath(new URL('../../../scripts/run-tests.mjs', import.meta.url));
/** The repository's root: the runner's working folder, from which its reports name files. */
const root = fileURLToPath(new URL('../../../', import.meta.url));

let workspace: string;
before(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'run-tests-'));
  await mkdir(join(workspace, 'test'));
});
after(() => rm(workspace, { recursive: true, force: true }));

async function run(
  name: string,
  source: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; output: string }> {
  await writeFile(
    join(workspace, 'test', `${name}.test.ts`),
    `import { test } from 'node:test';\n${source}\n`,
  );
  return runRunner([workspace], {
    TEST_FILTER: `/${name}.test.ts`,
    TEST_CONCURRENCY: '1',
    ...extraEnv,
  });
}

/** The runner as a child with `env` added; its exit code and output (stdout and stderr). */
async function runRunner(
  args: string[],
  extraEnv: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  // Without NODE_TEST_CONTEXT the inner run reports as a top-level run, not as this file.
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  // The inner run's failures are this test's subject, not failures of the outer run, and
  // its timings would overwrite the outer run's.
  delete env.TEST_FAILURES_FILE;
  delete env.TEST_TIMINGS_FILE;
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, [runner, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((done) =>
    child.on('exit', (exitCode) => done(exitCode)),
  );
  return { code, output };
}

describe('run-tests', () => {
  test('passes when every test passes, and counts a skipped test as skipped', async () => {
    const { code, output } = await run(
      'green',
      `test('a', () => {});\ntest('b', { skip: 'no engine' }, () => {});`,
    );
    assert.equal(code, 0, output);
    assert.match(output, /ℹ pass 1\n/);
    assert.match(output, /ℹ skipped 1\n/);
  });

  test('fails when a test fails, and its failures file names the source file', async () => {
    const failures = join(workspace, 'failures.jsonl');
    const { code, output } = await run('red', `test('a', () => { throw new Error('no'); });`, {
      TEST_FAILURES_FILE: failures,
    });
    assert.equal(code, 1, output);
    // The file ran from a bundle (TEST_BUNDLE unset); the report says which source it was.
    const [failure] = readFileSync(failures, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { file: string });
    assert.equal(resolve(root, failure!.file), join(workspace, 'test', 'red.test.ts'));
  });

  test('fails when a file exits 0 before its remaining tests ran', async () => {
    const { code, output } = await run(
      'cut-short',
      `test('a', () => {});\ntest('exits', () => process.exit(0));\ntest('never runs', () => { throw new Error('no'); });`,
    );
    assert.equal(code, 1, output);
    assert.match(output, /did NOT run/);
  });

  test('kills the children of a file that timed out, detached ones with their group', async () => {
    // The file starts two long-lived node children (one detached, which starts a
    // grandchild in its group), writes their pids, and never finishes.
    const pidsFile = join(workspace, 'timed-out-pids.json');
    const idle = `setInterval(() => {}, 1000)`;
    const { code, output } = await run(
      'timed-out',
      `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
test('hangs', async () => {
  const plain = spawn(process.execPath, ['-e', ${JSON.stringify(idle)}], { stdio: 'ignore' });
  const leader = spawn(process.execPath, ['-e', ${JSON.stringify(
    `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(idle)}], { stdio: 'ignore' }); console.log(c.pid); ${idle}`,
  )}], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  const grandchild = await new Promise((done) => leader.stdout.once('data', (d) => done(Number(String(d)))));
  writeFileSync(${JSON.stringify(pidsFile)}, JSON.stringify([plain.pid, leader.pid, grandchild]));
  await new Promise(() => {});
});`,
      { TEST_TIMEOUT_MS: '8000' },
    );
    assert.equal(code, 1, output);
    assert.ok(existsSync(pidsFile), output);
    const pids: number[] = JSON.parse(readFileSync(pidsFile, 'utf8'));
    assert.equal(pids.length, 3);
    // The kill is sent as the file's process ends; a child takes a moment to die after
    // it: wait for that, bounded.
    // A zombie (killed, not yet reaped by whoever adopted it) counts as gone.
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let tries = 0; pids.some(alive) && tries < 100; tries++)
      await new Promise((done) => setTimeout(done, 50));
    const left = pids.filter(alive);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    assert.deepEqual(left, [], 'children left running after their file timed out');
  });
});

describe('run-tests start order', () => {
  const listed = readFileSync(join(root, 'scripts', 'slow-tests.txt'), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);

  test('every file named in scripts/slow-tests.txt exists (a renamed file would lose its place)', () => {
    assert.ok(listed.length > 0);
    for (const path of listed) assert.ok(existsSync(join(root, path)), `${path} does not exist`);
  });

  test('starts the listed files first, in the list order, then the others by path', async () => {
    // Three chaos files: two listed (render's before integration's), one not.
    const { code, output } = await runRunner([], {
      TEST_FILTER: '/chaos/disk-full',
      TEST_LIST_ONLY: '1',
    });
    assert.equal(code, 0, output);
    const order = output
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim());
    const first = listed.filter((path) => path.includes('/chaos/disk-full'));
    assert.equal(first.length, 2, 'the test expects two listed disk-full files');
    assert.deepEqual(order, [...first, 'services/analytics/test/chaos/disk-full.test.ts']);
  });
});

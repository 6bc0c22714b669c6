/**
 * A full disk under the render service on its embedded defaults (issue 21 item 4): the
 * real service (`src/main.ts`, PGlite + files + in-process queue) runs under
 * `fiu-run -x`; with pwrite/fsync failing with ENOSPC every submission is a 503 whose
 * `detail` names the disk and that carries `Retry-After` (never a 202 for a job that
 * was not stored, never a 500), and `/health` says the database is down. PGlite cannot
 * go on after a failed WAL write (its next statement spins), so the driver retires it
 * and opens it again once the disk is free: the service then accepts by itself, and
 * the job accepted before the disk filled is still there.
 */
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  fiuAvailable,
  freePort,
  madeOsuFixture,
  madeOsuFixturesDir,
  setDiskFull,
  skipReason,
  spawnUnderFiu,
  until,
} from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const skip = skipReason('fiu-run and fiu-ctrl (Debian fiu-utils)', fiuAvailable());

/** This process's environment without engine URLs: the service runs on its embedded defaults. */
const engineFreeEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|REDIS_URL|S3_)/.test(name)),
  );

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { job_id?: string; detail?: string; code?: string };
}

test(
  'a full disk: 503 naming it with Retry-After, /health says db, recovery by itself',
  { skip, timeout: 120_000 },
  async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'render-disk-full-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child: ChildProcess = spawnUnderFiu(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts'],
      {
        cwd: SERVICE_DIR,
        env: {
          ...engineFreeEnv(),
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: join(work, 'data'),
          DATABASE_URL: '',
          REDIS_URL: '',
          S3_ENDPOINT: '',
          LOG_LEVEL: 'warn',
          SIGNING_SECRET: 'render-disk-full-secret',
          BEATMAPS_DIR: madeOsuFixturesDir(),
          // No renders: the test is about accepting, and chromium would only load the machine.
          RUN_WORKER: 'false',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    t.after(() => {
      child.kill('SIGKILL');
      rmSync(work, { recursive: true, force: true });
    });
    const replay = readFileSync(madeOsuFixture('perfect.osr'));
    let n = 0;
    const submit = async (): Promise<Answer> => {
      n += 1;
      const form = new FormData();
      form.append('replay', new Blob([replay]), 'disk.osr');
      const response = await fetch(`${base}/v1/render`, {
        method: 'POST',
        body: form,
        headers: { 'edge-connecting-ip': `10.0.0.${n}` },
      });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as Answer['body'],
      };
    };
    const health = async () => {
      const response = await fetch(`${base}/health`);
      return {
        status: response.status,
        body: (await response.json()) as {
          dependencies: Record<string, { status: string; error?: string }>;
        },
      };
    };

    await until('the service answers /health', 90_000, async () => (await health()).status === 200);
    const before = await submit();
    assert.equal(before.status, 202, JSON.stringify(before.body));

    setDiskFull(child.pid!, true);
    const whileFull: Answer[] = [];
    for (let i = 0; i < 3; i++) whileFull.push(await submit());
    for (const answer of whileFull) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'DATABASE_UNAVAILABLE');
      assert.match(answer.body.detail!, /\(pglite\) cannot write: the disk under it is full/);
      assert.equal(answer.retryAfter, '5');
      assert.equal(answer.body.job_id, undefined);
    }
    const down = await health();
    assert.equal(down.status, 503);
    assert.equal(down.body.dependencies.db!.status, 'down');
    assert.match(down.body.dependencies.db!.error!, /storage failure.*No space left on device/);

    setDiskFull(child.pid!, false);
    let after: Answer | undefined;
    await until('a submission is accepted again', 30_000, async () => {
      after = await submit();
      if (after.status !== 202) assert.equal(after.status, 503, JSON.stringify(after.body));
      return after.status === 202;
    });
    assert.equal((await health()).status, 200);
    const job = await fetch(`${base}/v1/jobs/${before.body.job_id}`);
    assert.equal(job.status, 200, 'the job accepted before the disk filled is still stored');
    assert.equal(child.exitCode, null, `the service is still running; stderr: ${stderr}`);
  },
);

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
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  embeddedDefaultsEnv,
  faultAnswer,
  type FaultAnswer,
  fiuSkipReason,
  madeOsuFixture,
  madeOsuFixturesDir,
  serviceHealth,
  setDiskFull,
  startServiceUnderFiu,
  until,
} from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const skip = fiuSkipReason();

type Answer = FaultAnswer<{ job_id?: string; detail?: string; code?: string }>;

test(
  'a full disk: 503 naming it with Retry-After, /health says db, recovery by itself',
  { skip, timeout: 120_000 },
  async (t) => {
    const service = await startServiceUnderFiu(t, SERVICE_DIR, {
      ...embeddedDefaultsEnv(),
      LOG_LEVEL: 'warn',
      SIGNING_SECRET: 'render-disk-full-secret',
      BEATMAPS_DIR: madeOsuFixturesDir(),
      // No renders: the test is about accepting, and chromium would only load the machine.
      RUN_WORKER: 'false',
    });
    const base = service.base;
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
      return faultAnswer(response);
    };
    const health = () => serviceHealth(base);

    await until('the service answers /health', 90_000, async () => (await health()).status === 200);
    const before = await submit();
    assert.equal(before.status, 202, JSON.stringify(before.body));

    setDiskFull(service.pid, true);
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
    assert.equal(down.body.dependencies?.db?.status, 'down');
    assert.match(down.body.dependencies!.db!.error!, /storage failure.*No space left on device/);

    setDiskFull(service.pid, false);
    // until() takes a throw for "not yet": the answers are kept and checked after it.
    const afterwards: Answer[] = [];
    await until('a submission is accepted again', 30_000, async () => {
      afterwards.push(await submit());
      return afterwards.at(-1)!.status === 202;
    });
    for (const answer of afterwards.slice(0, -1))
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal((await health()).status, 200);
    const job = await fetch(`${base}/v1/jobs/${before.body.job_id}`);
    assert.equal(job.status, 200, 'the job accepted before the disk filled is still stored');
    // Exactly the accepted jobs are stored: none of the refused submissions left one.
    const listed = (await (await fetch(`${base}/v1/jobs?limit=100`)).json()) as {
      jobs: Array<{ job_id: string }>;
    };
    assert.deepEqual(
      listed.jobs.map((j) => j.job_id).sort(),
      [before.body.job_id!, afterwards.at(-1)!.body.job_id!].sort(),
    );
    assert.equal(
      service.child.exitCode,
      null,
      `the service is still running; stderr: ${service.stderr()}`,
    );
  },
);

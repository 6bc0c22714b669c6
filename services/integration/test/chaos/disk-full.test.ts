/**
 * A full disk under the integration service on its embedded defaults (issue 21 item 4): the
 * real service (`src/main.ts`, PGlite + the SQL log) runs under packages/testing's
 * disk-fault preload; with pwrite/fsync failing with ENOSPC every record sent is a 503
 * whose `detail` names the database and that carries `Retry-After` (never a 202 for a
 * record that was not stored, never a 500), and `/health` says the database is down. Core's
 * PGlite driver retires the instance at its first storage failure and opens it again once
 * the disk is free: the service then accepts by itself.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  embeddedDefaultsEnv,
  faultAnswer,
  type FaultAnswer,
  diskFaultsSkipReason,
  serviceHealth,
  setDiskFull,
  startServiceUnderFiu,
  until,
} from '@platform/testing';

const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const skip = diskFaultsSkipReason();

type Answer = FaultAnswer<{ recordId?: string; detail?: string; code?: string }>;

test(
  'a full disk: 503 naming the database with Retry-After, /health says the database is down, recovery by itself',
  { skip, timeout: 180_000 },
  async (t) => {
    const service = await startServiceUnderFiu(t, SERVICE_DIR, {
      ...embeddedDefaultsEnv(),
      LOG_LEVEL: 'warn',
      INTEGRATION_ROLES: 'submission,control-plane',
    });
    const base = service.base;
    let n = 0;
    const send = async (): Promise<Answer> => {
      n += 1;
      const response = await fetch(`${base}/contracts/interns/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          internId: `disk-${n}`,
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: 'ada@example.org',
          college: 'Trinity',
          department: 'Maths',
          mentor: 'm',
          startDate: '2026-09-01',
        }),
      });
      return faultAnswer(response);
    };
    const health = () => serviceHealth(base);

    await until(
      'the service answers /health',
      150_000,
      async () => (await health()).status === 200,
    );
    const before = await send();
    assert.equal(before.status, 202, JSON.stringify(before.body));

    setDiskFull(service.pid, true);
    const whileFull: Answer[] = [];
    for (let i = 0; i < 3; i++) whileFull.push(await send());
    for (const answer of whileFull) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'DATABASE_UNAVAILABLE');
      assert.match(
        answer.body.detail!,
        /\(pglite\): the disk under it is full or failing; nothing was stored/,
      );
      assert.ok(answer.retryAfter, 'Retry-After');
      assert.equal(answer.body.recordId, undefined);
    }
    const down = await health();
    assert.equal(down.status, 503);
    assert.equal(down.body.dependencies?.database?.status, 'down', JSON.stringify(down.body));
    assert.match(down.body.dependencies!.database!.error!, /storage failure/);

    setDiskFull(service.pid, false);
    // until() takes a throw for "not yet": the answers are kept and checked after it.
    const afterwards: Answer[] = [];
    await until('a record is accepted again', 30_000, async () => {
      afterwards.push(await send());
      return afterwards.at(-1)!.status === 202;
    });
    for (const answer of afterwards.slice(0, -1))
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal((await health()).status, 200);
    assert.equal(
      service.child.exitCode,
      null,
      `the service is still running; stderr: ${service.stderr()}`,
    );
  },
);

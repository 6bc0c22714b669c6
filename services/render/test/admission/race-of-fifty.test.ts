/**
 * Fifty concurrent submissions from one address accept exactly two: the per-address
 * advisory lock serialises the active-job count, on PGlite and on PostgreSQL (where the
 * fifty really run on separate pooled sessions).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';

for (const { kind, skip } of await engineSets()) {
  describe(`race of fifty (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    before(async () => {
      // The rate limit is raised so all fifty reach the lock; the default is tested below.
      // The upload gate would answer most of the fifty first: this test is about the lock.
      engines = await openTestEngines(kind, {
        renderRateLimit: 1000,
        maxUploadsPerAddress: 100,
        maxConcurrentUploads: 100,
      });
      app = await buildTestApp(engines);
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    async function race(address: string) {
      const replay = readFixture('perfect.osr');
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => submit(app, { address, replay })),
      );
      const active = await engines.ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM render_jobs WHERE client_ip = $1 AND status = 'queued'`,
        [address],
      );
      // Refused submissions leave no replay behind: one stored replay per job.
      const jobs = await engines.ctx.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM render_jobs',
      );
      assert.equal((await engines.ctx.store.list('replays/')).length, Number(jobs.rows[0]!.n));
      return { responses, stored: Number(active.rows[0]!.n) };
    }

    test('50 concurrent submissions past the limiter: exactly 2 accepted, 48 refused for active jobs', async () => {
      const { responses, stored } = await race(freshAddress());
      const accepted = responses.filter((r) => r.statusCode === 202);
      const refused = responses.filter((r) => r.statusCode === 429);
      assert.equal(accepted.length, 2);
      assert.equal(refused.length, 48);
      assert.ok(refused.every((r) => r.json().detail === 'You already have 2 active render jobs.'));
      assert.equal(stored, 2);
    });

    test('with the default 5/min limit: 2 accepted, 3 refused for active jobs, 45 rate limited', async () => {
      engines.ctx.limiters.render = (await import('../../src/context.js')).createLimiters(
        engines.ctx.counters,
        {
          ...engines.ctx.settings,
          renderRateLimit: 5,
        },
      ).render;
      const { responses, stored } = await race(freshAddress());
      const details = responses.map(
        (r) => `${r.statusCode} ${r.statusCode === 202 ? '' : r.json().detail}`,
      );
      const count = (text: string) => details.filter((d) => d === text).length;
      assert.equal(count('202 '), 2);
      assert.equal(count('429 You already have 2 active render jobs.'), 3);
      assert.equal(count('429 Rate limit exceeded: 5 per 1 minute'), 45);
      assert.equal(stored, 2);
    });
  });
}

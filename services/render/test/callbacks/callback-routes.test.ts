/** The remote-worker callback: signed reports move the job; missing, bad or stale signatures are refused. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signCallback } from '../../src/callbacks/signature.js';
import { buildTestApp } from '../helpers/app.js';
import { buildRenderApp } from '../../src/app.js';
import { engineSets, openTestEngines, quietLogger, type TestEngines } from '../helpers/harness.js';
import { seedJobs } from '../helpers/outbox.js';

const SECRET = 'callback-secret-for-tests-0123456789';

for (const { kind, skip } of await engineSets()) {
  describe(`worker callback (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let ids: string[];
    before(async () => {
      engines = await openTestEngines(kind, { callbackSecret: SECRET });
      app = await buildTestApp(engines);
      ids = await seedJobs(engines, 3);
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    function send(
      id: string,
      report: unknown,
      options: {
        secret?: string;
        timestamp?: number;
        signature?: string;
        raw?: string;
        nonce?: string;
        signedFor?: string;
      } = {},
    ) {
      const body = options.raw ?? JSON.stringify(report);
      const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
      const nonce = options.nonce ?? randomBytes(16).toString('hex');
      const signature =
        options.signature ??
        signCallback(
          options.secret ?? SECRET,
          { timestamp, nonce, jobId: options.signedFor ?? id },
          body,
        );
      return app.inject({
        method: 'POST',
        url: `/v1/jobs/${id}/callback`,
        payload: body,
        headers: {
          'content-type': 'application/json',
          'x-render-timestamp': String(timestamp),
          'x-render-nonce': nonce,
          'x-render-signature': signature,
        },
      });
    }

    test('progress, then completion with the artifacts in storage', async () => {
      const id = ids[0]!;
      const rendering = await send(id, {
        worker_id: 'remote-1',
        status: 'rendering',
        progress: 40,
        map_title: 'A - B [C]',
      });
      assert.equal(rendering.statusCode, 200, rendering.body);
      assert.equal(rendering.json().status, 'rendering');
      assert.equal(rendering.json().progress, 40);
      const early = await send(id, { worker_id: 'remote-1', status: 'completed' });
      assert.equal(early.statusCode, 409, 'artifacts missing');
      for (const key of [`videos/${id}.mp4`, `thumbnails/${id}.jpg`, `logs/${id}.log`])
        await engines.ctx.store.put(key, 'x');
      const done = await send(id, { worker_id: 'remote-1', status: 'completed' });
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().status, 'completed');
      assert.equal(done.json().progress, 100);
      assert.equal(done.json().links.video, `/v1/artifacts/videos/${id}.mp4`);
      const again = await send(id, { worker_id: 'remote-1', status: 'failed', error: 'late' });
      assert.equal(again.statusCode, 409, 'a finished job accepts nothing');
    });

    test('a failure report carries its reason', async () => {
      const res = await send(ids[1]!, {
        worker_id: 'remote-2',
        status: 'failed',
        error: 'GPU fell over',
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'failed');
      assert.equal(res.json().error, 'GPU fell over');
    });

    test('missing, bad, wrong-secret and stale signatures → 401; nothing changes', async () => {
      const id = ids[2]!;
      const report = { worker_id: 'x', status: 'rendering', progress: 10 };
      const bad = [
        await send(id, report, { signature: 'sha256=deadbeef' }),
        await send(id, report, { secret: 'another-secret-another-secret' }),
        // 30 s past the 300 s tolerance: a second that ticks between signing and checking
        // cannot bring either back inside it (+301 did once in CI, under load).
        await send(id, report, { timestamp: Math.floor(Date.now() / 1000) - 330 }),
        await send(id, report, { timestamp: Math.floor(Date.now() / 1000) + 330 }),
        await app.inject({
          method: 'POST',
          url: `/v1/jobs/${id}/callback`,
          payload: JSON.stringify(report),
          headers: { 'content-type': 'application/json' },
        }),
      ];
      for (const res of bad) assert.equal(res.statusCode, 401, res.body);
      assert.equal(bad[2]!.json().detail, 'Stale callback signature.');
      // A valid signature over a different body does not carry over.
      const ts = Math.floor(Date.now() / 1000);
      const tampered = await app.inject({
        method: 'POST',
        url: `/v1/jobs/${id}/callback`,
        payload: JSON.stringify({ ...report, progress: 99 }),
        headers: {
          'content-type': 'application/json',
          'x-render-timestamp': String(ts),
          'x-render-nonce': 'n'.repeat(16),
          'x-render-signature': signCallback(
            SECRET,
            { timestamp: ts, nonce: 'n'.repeat(16), jobId: id },
            JSON.stringify(report),
          ),
        },
      });
      assert.equal(tampered.statusCode, 401);
      assert.equal((await app.inject(`/v1/jobs/${id}`)).json().status, 'queued');
    });

    test('a captured report is refused on another job and a second time on its own (401)', async () => {
      const [target, victim] = await seedJobs(engines, 2);
      const report = { worker_id: 'remote-9', status: 'failed', error: 'forged' };
      const timestamp = Math.floor(Date.now() / 1000);
      const nonce = randomBytes(16).toString('hex');
      // Signed for `target`, sent to `victim`.
      const moved = await send(victim!, report, { timestamp, nonce, signedFor: target! });
      assert.equal(moved.statusCode, 401);
      assert.equal(moved.json().detail, 'Invalid or missing callback signature.');
      assert.equal((await app.inject(`/v1/jobs/${victim}`)).json().status, 'queued');
      const first = await send(target!, { ...report, status: 'rendering', error: undefined });
      assert.equal(first.statusCode, 200, first.body);
      const replay = { worker_id: 'remote-9', status: 'rendering', progress: 5 };
      const once = await send(target!, replay, { timestamp, nonce: 'z'.repeat(20) });
      assert.equal(once.statusCode, 200, once.body);
      const twice = await send(target!, replay, { timestamp, nonce: 'z'.repeat(20) });
      assert.equal(twice.statusCode, 401);
      assert.equal(twice.json().detail, 'Replayed callback nonce.');
      const missing = await send(target!, replay, { nonce: '' });
      assert.equal(missing.statusCode, 401);
    });

    test('answers 403 while CALLBACK_SECRET is unset', async () => {
      const settings = { ...engines.ctx.settings, callbackSecret: undefined };
      const bare = await buildRenderApp({ ...engines.ctx, settings }, { logger: quietLogger });
      try {
        const res = await bare.inject({
          method: 'POST',
          url: `/v1/jobs/${ids[2]}/callback`,
          payload: '{}',
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.statusCode, 403);
        assert.equal(res.json().detail, 'Worker callbacks are not enabled on this server.');
      } finally {
        await bare.close();
      }
    });

    test('bodies that do not match the report schema → 422; unknown job → 404', async () => {
      assert.equal((await send(ids[2]!, { worker_id: 'x', status: 'exploded' })).statusCode, 422);
      assert.equal(
        (await send(ids[2]!, { worker_id: 'x', status: 'rendering', progress: 140 })).statusCode,
        422,
      );
      assert.equal((await send(ids[2]!, undefined, { raw: '{not json' })).statusCode, 422);
      assert.equal(
        (
          await send('00000000-0000-4000-8000-000000000000', {
            worker_id: 'x',
            status: 'rendering',
          })
        ).statusCode,
        404,
      );
    });
  });
}

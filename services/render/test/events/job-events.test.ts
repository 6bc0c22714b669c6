/**
 * GET /v1/jobs/{id}/events over a real socket: the state on connect (queue position),
 * an event per change, the stream ended after the final state, `gone` on removal,
 * 404/410 before a stream starts, and the per-address stream limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { engineSets, freshAddress, openTestEngines, type TestEngines } from '../helpers/harness.js';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Reads SSE events from a streaming response; `next()` resolves with the next one, or null at the end. */
function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async function next(): Promise<SseEvent | null> {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n');
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
        const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
        if (event && data) return { event, data: JSON.parse(data) };
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += decoder.decode(value, { stream: true });
    }
  };
}

for (const { kind, skip } of await engineSets()) {
  describe(`job event stream (${kind})`, { skip }, () => {
    let engines: TestEngines;
    let app: FastifyInstance;
    let base: string;
    const replay = readFixture('perfect.osr');
    const newJob = async () => {
      const res = await submit(app, { address: freshAddress(), replay });
      assert.equal(res.statusCode, 202, res.body);
      return res.json().job_id as string;
    };
    const sql = (text: string, id: string) => engines.ctx.db.query(text, [id]);

    before(async () => {
      engines = await openTestEngines(kind, {
        maxQueued: 1000,
        maxRendering: 1000,
        eventIntervalMs: 50,
      });
      app = await buildTestApp(engines);
      base = await app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await app?.close();
      await engines?.close();
    });

    test('state on connect with queue position, an event per change, the end after completion', async () => {
      const ahead = await newJob();
      const id = await newJob();
      const res = await fetch(`${base}/v1/jobs/${id}/events`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const next = sseReader(res);
      const first = await next();
      assert.equal(first?.event, 'job');
      assert.equal(first?.data.job_id, id);
      assert.equal(first?.data.status, 'queued');
      const position = first?.data.queue_position as number;
      assert.ok(position >= 2, `behind ${ahead}: ${position}`);

      await sql(
        `UPDATE render_jobs SET status = 'failed', finished_at = now() WHERE id = $1`,
        ahead,
      );
      assert.equal((await next())?.data.queue_position, position - 1);

      await sql(
        `UPDATE render_jobs SET status = 'rendering', progress = 50, started_at = now() - interval '10 seconds' WHERE id = $1`,
        id,
      );
      const rendering = await next();
      assert.equal(rendering?.data.status, 'rendering');
      assert.equal(rendering?.data.progress, 50);
      assert.equal(rendering?.data.queue_position, null);
      const eta = rendering?.data.eta_seconds as number;
      assert.ok(eta >= 9 && eta <= 12, `10 s run for half the work: ${eta}`);

      await sql(
        `UPDATE render_jobs SET status = 'completed', progress = 100, finished_at = now() WHERE id = $1`,
        id,
      );
      const done = await next();
      assert.equal(done?.data.status, 'completed');
      assert.equal(done?.data.eta_seconds, null);
      assert.equal(await next(), null, 'the stream ends after the final state');
    });

    test('a job removed while watched ends its stream with `gone`', async () => {
      const id = await newJob();
      const next = sseReader(await fetch(`${base}/v1/jobs/${id}/events`));
      assert.equal((await next())?.data.status, 'queued');
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` })).statusCode, 204);
      const gone = await next();
      assert.equal(gone?.event, 'gone');
      assert.equal(gone?.data.detail, 'This job was cancelled and deleted.');
      assert.equal(await next(), null);
      const after410 = await fetch(`${base}/v1/jobs/${id}/events`);
      assert.equal(after410.status, 410);
      assert.equal(
        ((await after410.json()) as { detail: string }).detail,
        'This job was cancelled and deleted.',
      );
    });

    test('unknown job → 404 before any stream', async () => {
      const res = await fetch(`${base}/v1/jobs/00000000-0000-4000-8000-000000000000/events`);
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as { detail: string }).detail, 'Job not found.');
    });

    test('at most 4 streams per address (429); a closed one frees its place', async () => {
      const id = await newJob();
      const headers = { 'edge-connecting-ip': '192.0.2.77' };
      const controllers = Array.from({ length: 4 }, () => new AbortController());
      const open = await Promise.all(
        controllers.map((c) =>
          fetch(`${base}/v1/jobs/${id}/events`, { headers, signal: c.signal }),
        ),
      );
      assert.deepEqual(
        open.map((r) => r.status),
        [200, 200, 200, 200],
      );
      const fifth = await fetch(`${base}/v1/jobs/${id}/events`, { headers });
      assert.equal(fifth.status, 429);
      assert.equal(
        ((await fifth.json()) as { detail: string }).detail,
        'You already have 4 live event streams open.',
      );
      controllers[0]!.abort();
      // The server sees the close, then admits one more.
      let again: Response | undefined;
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        again = await fetch(`${base}/v1/jobs/${id}/events`, { headers });
        if (again.status === 200) break;
        await again.body?.cancel();
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(again?.status, 200, 'a stream place freed after a client left');
      await again?.body?.cancel();
      for (const c of controllers) c.abort();
    });
  });
}

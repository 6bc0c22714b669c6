import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createHttpApp, createLogger } from '../../src/index.js';

/** An app logging at info to a file; the lines it wrote after `send` ran, parsed. */
async function linesOf(
  requestLog: 'fastify' | 'completed' | undefined,
  send: (app: Awaited<ReturnType<typeof createHttpApp>>) => Promise<unknown>,
): Promise<Record<string, unknown>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'request-log-'));
  const file = join(dir, 'log.ndjson');
  try {
    const logger = createLogger({ service: 'test', level: 'info', file });
    const app = await createHttpApp({
      service: 'test',
      logger,
      ...(requestLog ? { requestLog } : {}),
    });
    app.get('/things', async () => ({ ok: true }));
    app.get('/broken', async () => {
      throw new Error('broken on purpose');
    });
    await app.ready();
    await send(app);
    await app.close();
    const text = await readFile(file, 'utf8');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("requestLog: 'completed'", () => {
  test('one line per request, when answered: method, URL, status, time and request id', async () => {
    const lines = await linesOf('completed', (app) =>
      app.inject({ url: '/things?x=1', headers: { 'x-request-id': 'req-1' } }),
    );
    const about = lines.filter((line) => line.reqId === 'req-1');
    assert.equal(about.length, 1, JSON.stringify(about));
    const [line] = about as [Record<string, unknown>];
    assert.equal(line.msg, 'request completed');
    assert.equal(line.level, 30);
    assert.equal(line.service, 'test');
    assert.deepEqual(line.req, { method: 'GET', url: '/things?x=1' });
    assert.deepEqual(line.res, { statusCode: 200 });
    assert.equal(typeof line.responseTime, 'number');
  });

  test('a failed request still logs its error, and its line carries the 500', async () => {
    const lines = await linesOf('completed', (app) =>
      app.inject({ url: '/broken', headers: { 'x-request-id': 'req-2' } }),
    );
    const about = lines.filter((line) => line.reqId === 'req-2');
    assert.ok(
      about.some((line) => line.level === 50 && String(line.msg).length > 0),
      JSON.stringify(about),
    );
    assert.ok(
      about.some(
        (line) =>
          line.msg === 'request completed' &&
          (line.res as { statusCode?: number }).statusCode === 500,
      ),
      JSON.stringify(about),
    );
  });

  test("Fastify's two lines stay the default", async () => {
    const lines = await linesOf(undefined, (app) =>
      app.inject({ url: '/things', headers: { 'x-request-id': 'req-3' } }),
    );
    const messages = lines.filter((line) => line.reqId === 'req-3').map((line) => line.msg);
    assert.deepEqual(messages, ['incoming request', 'request completed']);
  });
});

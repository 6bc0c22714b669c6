/**
 * Render's access table (issue 15): the public API stays open with or without API keys
 * (submission is rate-limited, the callback carries its own HMAC); deleting another
 * client's job needs an operator; only /metrics needs a key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bearer,
  checkKeyedAccess,
  checkLocalAccess,
  testAccessPolicy,
  type AccessTable,
} from '@platform/testing';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, submit } from '../helpers/app.js';
import { readFixture } from '../helpers/fixtures.js';
import { openTestEngines, type TestEngines } from '../helpers/harness.js';

const RENDER_ACCESS: AccessTable = {
  'GET /docs': 'open',
  'GET /openapi.json': 'open',
  'GET /health': 'open',
  'GET /metrics': 'operate',
  'GET /_objects/*': 'open',
  'POST /v1/render': 'open',
  'GET /v1/jobs': 'open',
  'GET /v1/jobs/:job_id': 'open',
  'DELETE /v1/jobs/:job_id': 'open',
  'GET /v1/jobs/:job_id/events': 'open',
  'GET /v1/skins': 'open',
  'POST /v1/skins/upload': 'open',
  'GET /v1/artifacts/*': 'open',
  'POST /render': 'open',
  'GET /status/:job_id': 'open',
  'GET /jobs': 'open',
  'GET /video/:file': 'open',
  'GET /thumbnail/:file': 'open',
  'GET /logs/:file': 'open',
  'GET /skins': 'open',
  'POST /skins/upload': 'open',
  'GET /': 'open',
  'GET /view/:job_id': 'open',
  'GET /assets/openapi-fetch.js': 'open',
  'POST /v1/jobs/:job_id/callback': 'open',
};

describe('render access', () => {
  let engines: TestEngines;
  let keyed: FastifyInstance;
  let local: FastifyInstance;

  before(async () => {
    engines = await openTestEngines('embedded', { renderRateLimit: 1000 });
    keyed = await buildTestApp(engines, testAccessPolicy());
    local = await buildTestApp(engines);
  });
  after(async () => {
    await keyed?.close();
    await local?.close();
    await engines?.close();
  });

  test('with API keys: every route as in the table (only /metrics needs a key)', async () => {
    await checkKeyedAccess(keyed, RENDER_ACCESS);
    const metrics = await keyed.inject({ url: '/metrics', headers: bearer('operate') });
    assert.equal(metrics.statusCode, 200);
  });

  test('without keys: /metrics answers loopback only', async () => {
    await checkLocalAccess(local, RENDER_ACCESS);
  });

  test("with keys: another client's job is deleted only with an operate key", async () => {
    const res = await submit(keyed, {
      address: '198.51.100.30',
      replay: readFixture('perfect.osr'),
    });
    assert.equal(res.statusCode, 202, res.body);
    const id = res.json().job_id as string;
    const del = (headers: Record<string, string>) =>
      keyed.inject({
        method: 'DELETE',
        url: `/v1/jobs/${id}`,
        remoteAddress: '198.51.100.31',
        headers,
      });
    assert.equal((await del({})).statusCode, 403);
    assert.equal((await del(bearer('submit'))).statusCode, 403);
    assert.equal((await del({ authorization: 'Bearer wrong-key-wrong-key-0000' })).statusCode, 403);
    assert.equal((await del(bearer('operate'))).statusCode, 204);
  });
});

/**
 * Every row of the error table (spec section 7) for the submission service, the legacy
 * /interns paths with their CORS, trace ids in the logs, and metrics by contract.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';
import { createSqlLogBroker } from '../../src/broker/sql-log/sql-log-broker.js';
import { DEFAULT_FIELD_MAX_LENGTH } from '../../src/contracts/payload.js';
import { buildSubmissionApp } from '../../src/submission/app.js';
import { silentLogger, waitFor } from '../helpers/broker-drivers.js';
import { createOnly, internPayload, internsLike, uniqueContractId } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

type Errors = { detail: string; errors: Array<{ field: string; message: string }> };

describe('submission: error table and legacy paths (SQL log on PGlite)', () => {
  let h: Harness;
  const interns = internsLike();
  const orders = createOnly();
  before(async () => {
    h = await openHarness();
    await h.register(interns);
    await h.register(orders);
    await h.register(INTERNS_CONTRACT);
  });
  after(async () => h?.close());

  const post = (contractId: string, payload: unknown) =>
    h.submission.inject({
      method: 'POST',
      url: `/contracts/${contractId}/records`,
      payload: payload as object,
    });

  it('400: field-level errors for names, types, required-ness, enum domain and undeclared keys', async () => {
    const response = await post(interns.contractId, {
      ...internPayload({
        email: 'not-an-email',
        status: 'PAUSED',
        startDate: null,
        department: 7,
        nickname: 'Ada',
      }),
      lastName: undefined,
    });
    assert.equal(response.statusCode, 400);
    const body = json<Errors>(response);
    assert.match(body.detail, /^payload fails contract validation/);
    assert.deepEqual(body.errors.map((e) => e.field).sort(), [
      'department',
      'email',
      'lastName',
      'nickname',
      'startDate',
      'status',
    ]);
    assert.equal(
      body.errors.find((e) => e.field === 'nickname')!.message,
      'is not a declared field of this contract',
    );
    assert.equal(
      (await h.submission.inject({ url: `/contracts/${interns.contractId}/records` })).json().total,
      0,
    );
  });

  it('400 never mentions a field whose default supplies it (default before required)', async () => {
    const response = await post(interns.contractId, { ...internPayload(), college: '' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      json<Errors>(response).errors.map((e) => e.field),
      ['college'],
    );
    const ok = await post(interns.contractId, internPayload({ status: '' }));
    assert.equal(ok.statusCode, 202);
  });

  it('400 for a body that is not a JSON object', async () => {
    const response = await h.submission.inject({
      method: 'POST',
      url: `/contracts/${interns.contractId}/records`,
      payload: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.statusCode, 400);
  });

  it('400, not 500, for text the database cannot hold: a NUL character or an unpaired surrogate', async () => {
    const total = async () =>
      (await h.submission.inject({ url: `/contracts/${interns.contractId}/records` })).json().total;
    const before = await total();
    const responses = await Promise.all([
      post(interns.contractId, internPayload({ lastName: 'Love\u0000lace' })),
      post(interns.contractId, internPayload({ internId: '\ud800' })),
      h.submission.inject({ url: `/contracts/${interns.contractId}/records/a%00b` }),
      h.submission.inject({
        method: 'DELETE',
        url: `/contracts/${interns.contractId}/records/a%00b`,
      }),
      h.submission.inject({ url: `/contracts/a%00b/records` }),
    ]);
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [400, 400, 400, 400, 400],
    );
    assert.match(json<Errors>(responses[0]!).detail, /NUL character/);
    assert.equal(await total(), before, 'nothing kept');
  });

  it('404 for an unknown contract on every record route', async () => {
    const unknown = uniqueContractId('nope');
    const responses = await Promise.all([
      post(unknown, internPayload()),
      h.submission.inject({ url: `/contracts/${unknown}/records` }),
      h.submission.inject({ method: 'PUT', url: `/contracts/${unknown}/records/k`, payload: {} }),
      h.submission.inject({ method: 'DELETE', url: `/contracts/${unknown}/records/k` }),
    ]);
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [404, 404, 404, 404],
    );
    assert.equal(json<Errors>(responses[0]!).detail, `unknown contractId: ${unknown}`);
  });

  it('404 when the record to edit or delete does not exist', async () => {
    const payload = internPayload();
    const put = await h.submission.inject({
      method: 'PUT',
      url: `/contracts/${interns.contractId}/records/${payload.internId}`,
      payload,
    });
    assert.equal(put.statusCode, 404);
    assert.equal(json<Errors>(put).detail, `record ${payload.internId} does not exist`);
  });

  it('409 for an edit or delete on a contract without an update-style or tombstone type', async () => {
    const created = await post(orders.contractId, { region: 'eu', orderNo: '1' });
    assert.equal(created.statusCode, 202);
    const put = await h.submission.inject({
      method: 'PUT',
      url: `/contracts/${orders.contractId}/records/eu|1`,
      payload: { region: 'eu', orderNo: '1' },
    });
    assert.equal(put.statusCode, 409);
    assert.equal(json<Errors>(put).detail, 'contract declares no update-style record type');
    const del = await h.submission.inject({
      method: 'DELETE',
      url: `/contracts/${orders.contractId}/records/eu|1`,
    });
    assert.equal(del.statusCode, 409);
    assert.equal(json<Errors>(del).detail, 'contract declares no tombstone record type');
  });

  it('409 for a second create of the same natural key; after a delete it may be created again', async () => {
    const payload = internPayload();
    assert.equal((await post(interns.contractId, payload)).statusCode, 202);
    const again = await post(interns.contractId, payload);
    assert.equal(again.statusCode, 409);
    assert.equal(
      (
        await h.submission.inject({
          method: 'DELETE',
          url: `/contracts/${interns.contractId}/records/${payload.internId}`,
        })
      ).statusCode,
      202,
    );
    assert.equal((await post(interns.contractId, payload)).statusCode, 202);
  });

  it('a pending reservation blocks the key and is never listed (the outbox relay resolves it)', async () => {
    const payload = internPayload();
    const key = payload.internId as string;
    await h.db.query(
      `INSERT INTO submitted_records (contract_id, natural_key, record_id, record_type, schema_version, payload, occurred_at, trace_id, state)
       VALUES ($1, $2, gen_random_uuid(), 'intern.created', 1, '{}'::jsonb, now(), gen_random_uuid(), 'pending')`,
      [interns.contractId, key],
    );
    assert.equal((await post(interns.contractId, payload)).statusCode, 409);
    assert.equal(
      (await h.submission.inject({ url: `/contracts/${interns.contractId}/records/${key}` }))
        .statusCode,
      404,
      'pending is never listed',
    );
  });

  it('400 when a PUT payload changes the natural key', async () => {
    const payload = internPayload();
    await post(interns.contractId, payload);
    const response = await h.submission.inject({
      method: 'PUT',
      url: `/contracts/${interns.contractId}/records/${payload.internId}`,
      payload: { ...payload, internId: 'other' },
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      json<Errors>(response).errors.map((e) => e.field),
      ['internId'],
    );
  });

  it('500 when the built envelope fails its schema: logged as critical, nothing published or kept', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
    );
    const broken = await buildSubmissionApp({
      db: h.db,
      broker: h.broker,
      logger,
      newRecordId: () => 'not-a-uuid',
    });
    try {
      const { records } = await h.collect([`${orders.contractId}.created`]);
      const response = await broken.inject({
        method: 'POST',
        url: `/contracts/${orders.contractId}/records`,
        payload: { region: 'us', orderNo: '500' },
      });
      assert.equal(response.statusCode, 500);
      assert.equal(
        json<Errors>(response).detail,
        'the built envelope failed schema validation; nothing was published',
      );
      assert.ok(
        lines.some((line) => line.includes('"critical":true') && line.includes('/recordId')),
      );
      // A good record published afterwards arrives; the refused one never does.
      assert.equal(
        (await post(orders.contractId, { region: 'us', orderNo: '501' })).statusCode,
        202,
      );
      await waitFor('the good record', () => records.some((r) => r.key === 'us|501'));
      assert.equal(
        records.some((r) => r.key === 'us|500'),
        false,
      );
      assert.equal(
        (await h.submission.inject({ url: `/contracts/${orders.contractId}/records/us|500` }))
          .statusCode,
        404,
      );
    } finally {
      await broken.close();
    }
  });

  it("400 past a field's maxLength: the contract's own, else the platform default", async () => {
    const capped = internsLike();
    capped.fields.find((f) => f.name === 'firstName')!.maxLength = 5;
    await h.register(capped);
    const tooLong = await post(capped.contractId, internPayload({ firstName: 'Adelaide' }));
    assert.equal(tooLong.statusCode, 400);
    assert.deepEqual(json<Errors>(tooLong).errors, [
      { field: 'firstName', message: 'must be at most 5 characters' },
    ]);
    // Characters, not UTF-16 units: five emoji fit in five.
    assert.equal(
      (await post(capped.contractId, internPayload({ firstName: '😀😀😀😀😀' }))).statusCode,
      202,
    );
    const byDefault = await post(
      interns.contractId,
      internPayload({ lastName: 'x'.repeat(DEFAULT_FIELD_MAX_LENGTH + 1) }),
    );
    assert.equal(byDefault.statusCode, 400);
    assert.deepEqual(json<Errors>(byDefault).errors, [
      { field: 'lastName', message: `must be at most ${DEFAULT_FIELD_MAX_LENGTH} characters` },
    ]);
    const atDefault = internPayload({ lastName: 'x'.repeat(DEFAULT_FIELD_MAX_LENGTH) });
    assert.equal((await post(interns.contractId, atDefault)).statusCode, 202);
  });

  it("413 when the envelope is larger than the broker's message limit: nothing published or kept", async () => {
    const broker = await createSqlLogBroker({
      db: h.db,
      logger: silentLogger(),
      maxMessageBytes: 2048,
    });
    const small = await buildSubmissionApp({ db: h.db, broker, logger: silentLogger() });
    try {
      const { records } = await h.collect([`${orders.contractId}.created`]);
      const big = { region: 'eu', orderNo: 'o'.repeat(3000) };
      const refused = await small.inject({
        method: 'POST',
        url: `/contracts/${orders.contractId}/records`,
        payload: big,
      });
      assert.equal(refused.statusCode, 413, refused.body);
      assert.match(
        json<Errors>(refused).detail,
        /^record too large: its envelope is \d+ bytes, the broker takes at most 2048$/,
      );
      const fits = await small.inject({
        method: 'POST',
        url: `/contracts/${orders.contractId}/records`,
        payload: { region: 'eu', orderNo: 'fits' },
      });
      assert.equal(fits.statusCode, 202);
      await waitFor('the record that fits', () => records.some((r) => r.key === 'eu|fits'));
      assert.equal(
        records.some((r) => r.key === `eu|${big.orderNo}`),
        false,
      );
      // The refused key was released: the app with the default limit takes it.
      assert.equal((await post(orders.contractId, big)).statusCode, 202);
    } finally {
      await small.close();
      await broker.close();
    }
  });

  it('lists submitted records from its own read model, paged', async () => {
    const id = uniqueContractId('listing');
    await h.register(internsLike(id));
    const keys: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const payload = internPayload();
      keys.push(payload.internId as string);
      assert.equal((await post(id, payload)).statusCode, 202);
    }
    const page = json<{
      records: Array<{ naturalKey: string; payload: Record<string, string> }>;
      total: number;
    }>(await h.submission.inject({ url: `/contracts/${id}/records?limit=2&offset=1` }));
    assert.equal(page.total, 3);
    assert.deepEqual(
      page.records.map((r) => r.naturalKey),
      keys.slice(1),
    );
    assert.equal(page.records[0]!.payload.status, 'ACTIVE');
    const past = await h.submission.inject({
      url: `/contracts/${id}/records?offset=${Number.MAX_SAFE_INTEGER}`,
    });
    assert.equal(
      json<{ total: number }>(past).total,
      3,
      'the largest offset is a page past the end',
    );
    assert.equal(
      (await h.submission.inject({ url: `/contracts/${id}/records?offset=99999999999999999999` }))
        .statusCode,
      400,
    );
  });

  it('legacy POST /interns takes the flat form (202 with recordId) and GET /interns lists flat items', async () => {
    const payload = internPayload();
    const response = await h.submission.inject({ method: 'POST', url: '/interns', payload });
    assert.equal(response.statusCode, 202);
    const { recordId } = json<{ recordId: string }>(response);
    const list = json<{ interns: Array<Record<string, string>> }>(
      await h.submission.inject({ url: '/interns?limit=1000' }),
    );
    const item = list.interns.find((i) => i.recordId === recordId);
    assert.ok(item);
    assert.equal(item.internId, payload.internId);
    assert.equal(item.status, 'ACTIVE');
    assert.match(item.createdAt!, /Z$/);
    const bad = await h.submission.inject({
      method: 'POST',
      url: '/interns',
      payload: { ...payload, internId: 'x2', email: 'bad', startDate: null },
    });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      json<Errors>(bad)
        .errors.map((e) => e.field)
        .sort(),
      ['email', 'startDate'],
    );
  });

  it('CORS on /interns for configured origins only, with preflight', async () => {
    const allowed = await h.submission.inject({
      url: '/interns',
      headers: { origin: 'http://allowed.example' },
    });
    assert.equal(allowed.headers['access-control-allow-origin'], 'http://allowed.example');
    const other = await h.submission.inject({
      url: '/interns',
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const preflight = await h.submission.inject({
      method: 'OPTIONS',
      url: '/interns',
      headers: { origin: 'http://allowed.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
    const contractPath = await h.submission.inject({
      url: `/contracts/${interns.contractId}/records`,
      headers: { origin: 'http://allowed.example' },
    });
    assert.equal(contractPath.headers['access-control-allow-origin'], undefined);
  });

  it('puts the traceId on every log line of a submission and counts metrics by contractId only', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
    );
    const app = await buildSubmissionApp({ db: h.db, broker: h.broker, logger });
    try {
      const payload = internPayload();
      const response = await app.inject({
        method: 'POST',
        url: `/contracts/${interns.contractId}/records`,
        payload,
      });
      assert.equal(response.statusCode, 202);
      const traceId = String(response.headers['x-trace-id']);
      const related = lines.filter((line) => line.includes(traceId));
      assert.ok(
        related.length >= 3,
        `expected request, publish and response lines, got ${related.length}`,
      );
      // Fastify's "incoming request" line precedes the hooks: it carries the request id, which is the trace id.
      for (const line of lines) {
        const entry = JSON.parse(line) as { traceId?: string; reqId?: string };
        assert.equal(entry.traceId ?? entry.reqId, traceId, line);
      }
      const metrics = (await app.inject({ url: '/metrics' })).body;
      assert.match(
        metrics,
        new RegExp(
          `integration_records_published_total\\{[^}]*contract_id="${interns.contractId}"[^}]*\\} 1`,
        ),
      );
      assert.equal(metrics.includes(json<{ recordId: string }>(response).recordId), false);
    } finally {
      await app.close();
    }
  });

  it('binds the request id and a given trace id in one child logger a request', async () => {
    const lines: string[] = [];
    const children: Array<Record<string, unknown>> = [];
    const logger = pino(
      { level: 'info', onChild: (child) => children.push(child.bindings()) },
      new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
    );
    const app = await buildSubmissionApp({ db: h.db, broker: h.broker, logger });
    try {
      const traceId = '0f6e2c1a-5b4d-4c3e-9a8b-7d6c5b4a3f21';
      children.length = 0;
      const response = await app.inject({
        method: 'POST',
        url: `/contracts/${interns.contractId}/records`,
        headers: { 'x-trace-id': traceId.toUpperCase() },
        payload: internPayload(),
      });
      assert.equal(response.statusCode, 202);
      assert.equal(response.headers['x-trace-id'], traceId);
      assert.equal(json<{ traceId: string }>(response).traceId, traceId);
      const perRequest = children.filter((bindings) => 'reqId' in bindings);
      assert.equal(perRequest.length, 1, JSON.stringify(children));
      assert.equal(perRequest[0]!.traceId, traceId);
      // Every line of the request, "incoming request" included, carries both ids.
      const entries = lines.map((line) => JSON.parse(line) as { traceId?: string; reqId?: string });
      const ofRequest = entries.filter((entry) => entry.reqId === perRequest[0]!.reqId);
      assert.ok(ofRequest.length >= 2, JSON.stringify(entries));
      for (const entry of ofRequest) assert.equal(entry.traceId, traceId);
    } finally {
      await app.close();
    }
  });
});

/**
 * `POST /contracts/{id}/records:batch`: one result per record in order, each with its own
 * status; a bad record loses none of its neighbours; revisions per key across delete and
 * re-create; the contract cache sees an edit made through the control plane at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uniqueName, waitFor } from '../helpers/broker-drivers.js';
import { internPayload, internsLike } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

type Result = {
  status: number;
  recordId?: string;
  naturalKey?: string;
  detail?: string;
  errors?: Array<{ field: string }>;
};

describe('submission: batch intake and revisions (SQL log on PGlite)', () => {
  let h: Harness;
  const interns = internsLike();
  before(async () => {
    h = await openHarness();
    await h.register(interns);
  });
  after(async () => h?.close());

  const batch = (records: unknown, contractId = interns.contractId) =>
    h.submission.inject({
      method: 'POST',
      url: `/contracts/${contractId}/records:batch`,
      payload: { records } as object,
    });

  it('answers each record in order; invalid and conflicting ones do not stop the valid ones', async () => {
    const existing = internPayload();
    assert.equal(
      (
        await h.submission.inject({
          method: 'POST',
          url: `/contracts/${interns.contractId}/records`,
          payload: existing,
        })
      ).statusCode,
      202,
    );
    const good = [internPayload(), internPayload(), internPayload()];
    const twice = internPayload();
    const response = await batch([
      good[0],
      { ...internPayload(), email: 'nope' },
      existing,
      good[1],
      twice,
      twice,
      good[2],
    ]);
    assert.equal(response.statusCode, 200);
    const { results } = json<{ results: Result[] }>(response);
    assert.deepEqual(
      results.map((r) => r.status),
      [202, 400, 409, 202, 202, 409, 202],
    );
    assert.deepEqual(
      results[1]!.errors!.map((e) => e.field),
      ['email'],
    );
    assert.match(results[2]!.detail!, /already exists/);
    assert.deepEqual(
      [results[0], results[3], results[6]].map((r) => r!.naturalKey),
      good.map((p) => p.internId),
    );
    for (const payload of [...good, twice]) {
      const found = await h.submission.inject({
        url: `/contracts/${interns.contractId}/records/${String(payload.internId)}`,
      });
      assert.equal(found.statusCode, 200, `${String(payload.internId)} is in the read model`);
    }
    const { records } = await h.collect([`${interns.contractId}.created`]);
    await waitFor('the published creates', () => records.length >= 5);
    const published = new Set(records.map((r) => JSON.parse(r.value.toString()).recordId));
    for (const r of [results[0], results[3], results[4], results[6]])
      assert.ok(published.has(r!.recordId), 'every 202 was published');
  });

  it('refuses a malformed or oversized batch as a whole, and an unknown contract with 404', async () => {
    assert.equal((await batch([])).statusCode, 400);
    assert.equal(
      (await batch(Array.from({ length: 1001 }, () => internPayload()))).statusCode,
      400,
    );
    assert.equal(
      (
        await h.submission.inject({
          method: 'POST',
          url: `/contracts/${interns.contractId}/records:batch`,
          payload: [internPayload()],
        })
      ).statusCode,
      400,
    );
    assert.equal((await batch([internPayload()], 'nosuchcontract')).statusCode, 404);
  });

  it('counts a revision per key that goes on through a delete and a re-create, in the envelope and the header', async () => {
    const payload = internPayload();
    const key = String(payload.internId);
    const url = `/contracts/${interns.contractId}/records`;
    assert.equal((await h.submission.inject({ method: 'POST', url, payload })).statusCode, 202);
    assert.equal(
      (
        await h.submission.inject({
          method: 'PUT',
          url: `${url}/${key}`,
          payload: { ...payload, department: 'Maths' },
        })
      ).statusCode,
      202,
    );
    assert.equal(
      (await h.submission.inject({ method: 'DELETE', url: `${url}/${key}` })).statusCode,
      202,
    );
    assert.equal((await batch([payload])).statusCode, 200);
    const { records } = await h.collect(
      ['created', 'updated', 'deleted'].map((t) => `${interns.contractId}.${t}`),
    );
    await waitFor(
      'four events of the key',
      () => records.filter((r) => r.key === key).length === 4,
    );
    const ofKey = records
      .filter((r) => r.key === key)
      .map((r) => ({
        revision: JSON.parse(r.value.toString()).revision,
        header: r.headers.revision,
        type: JSON.parse(r.value.toString()).recordType,
      }));
    ofKey.sort((a, b) => a.revision - b.revision);
    assert.deepEqual(
      ofKey.map((e) => e.revision),
      [1, 2, 3, 4],
    );
    assert.deepEqual(
      ofKey.map((e) => e.header),
      ['1', '2', '3', '4'],
    );
    assert.deepEqual(
      ofKey.map((e) => e.type),
      ['intern.created', 'intern.updated', 'intern.deleted', 'intern.created'],
    );
  });

  it('sees a new contract version at once (the cache is dropped on change)', async () => {
    const before = await h.submission.inject({
      method: 'POST',
      url: `/contracts/${interns.contractId}/records`,
      payload: internPayload({ nickname: uniqueName('n') }),
    });
    assert.equal(before.statusCode, 400);
    const next = {
      ...interns,
      schemaVersion: 2,
      fields: [...interns.fields, { name: 'nickname', type: 'string', required: false }],
    };
    const edit = await h.controlPlane.inject({
      method: 'POST',
      url: `/contracts/${interns.contractId}/versions`,
      payload: next,
    });
    assert.equal(edit.statusCode, 201, edit.body);
    const after = await h.submission.inject({
      method: 'POST',
      url: `/contracts/${interns.contractId}/records`,
      payload: internPayload({ nickname: 'Ada' }),
    });
    assert.equal(after.statusCode, 202, after.body);
  });
});

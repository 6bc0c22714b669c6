/**
 * Contract evolution (issue 7): versioned, compatibility-checked edits in BACKWARD mode,
 * a dry-run check saying what is incompatible and why, versions kept, schemaVersion
 * stamped on envelopes, and no redeploy: the running submission service follows at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ContractDefinition } from '../../src/contracts/contract.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { waitFor } from '../helpers/broker-drivers.js';
import { createOnly, internPayload, internsLike, uniqueContractId } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

type Check = {
  compatible: boolean;
  currentVersion: number;
  proposedVersion: number;
  incompatibilities: Array<{ level: string; path: string; rule: string; message: string }>;
};

describe('control plane: contract evolution', () => {
  let h: Harness;
  const v1 = internsLike();
  const id = v1.contractId;
  const withPhone = (): ContractDefinition => ({
    ...structuredClone(v1),
    schemaVersion: 2,
    fields: [...v1.fields, { name: 'phone', type: 'string', required: false }],
  });
  before(async () => {
    h = await openHarness();
    await h.register(v1);
  });
  after(async () => h?.close());

  const dryRun = (body: unknown, contractId = id) =>
    h.controlPlane.inject({
      method: 'POST',
      url: `/contracts/${contractId}/compatibility`,
      payload: body as object,
    });
  const evolve = (body: unknown, contractId = id) =>
    h.controlPlane.inject({
      method: 'POST',
      url: `/contracts/${contractId}/versions`,
      payload: body as object,
    });
  const current = async () =>
    json<{ contract: ContractDefinition }>(await h.controlPlane.inject({ url: `/contracts/${id}` }))
      .contract;

  it('dry run: a compatible change is reported compatible and nothing is written', async () => {
    const response = await dryRun(withPhone());
    assert.equal(response.statusCode, 200);
    const check = json<Check>(response);
    assert.deepEqual({ ...check, incompatibilities: check.incompatibilities.length }, {
      contractId: id,
      mode: 'BACKWARD',
      compatible: true,
      currentVersion: 1,
      proposedVersion: 2,
      incompatibilities: 0,
    } as never);
    assert.equal((await current()).schemaVersion, 1);
  });

  it('dry run: says what is incompatible and why, at both levels', async () => {
    const proposal = structuredClone(v1);
    proposal.fields = proposal.fields.filter((f) => f.name !== 'college');
    proposal.fields.push({ name: 'badge', type: 'string', required: true });
    const check = json<Check>(await dryRun({ ...proposal, schemaVersion: undefined }));
    assert.equal(check.compatible, false);
    const found = check.incompatibilities.map((i) => `${i.level}:${i.rule}`);
    for (const expected of [
      'contract:field-removed',
      'contract:required-field-without-default',
      'envelope:property-removed',
      'envelope:required-added',
    ]) {
      assert.ok(found.includes(expected), `${expected} in ${found.join(', ')}`);
    }
    assert.ok(check.incompatibilities.every((i) => i.message.length > 0 && i.path.length > 0));
  });

  it('dry run: 400 for an invalid definition, 404 for an unknown contract', async () => {
    const invalid = structuredClone(v1);
    invalid.fields[8]!.default = 'PAUSED';
    assert.equal((await dryRun(invalid)).statusCode, 400);
    assert.equal((await dryRun(v1, uniqueContractId('nope'))).statusCode, 404);
  });

  it('refuses an incompatible edit with 409 and the reasons; the contract is unchanged', async () => {
    const proposal = structuredClone(v1);
    proposal.schemaVersion = 2;
    proposal.fields.find((f) => f.name === 'status')!.values = ['ACTIVE'];
    const response = await evolve(proposal);
    assert.equal(response.statusCode, 409);
    const body = json<{ detail: string; incompatibilities: Check['incompatibilities'] }>(response);
    assert.match(body.detail, /^incompatible contract change \(BACKWARD mode\)/);
    assert.ok(body.incompatibilities.some((i) => i.rule === 'enum-value-removed'));
    assert.deepEqual(await current(), v1);
  });

  it('refuses a schemaVersion other than the current plus one (409)', async () => {
    const response = await evolve({ ...withPhone(), schemaVersion: 5 });
    assert.equal(response.statusCode, 409);
    assert.match(json<{ detail: string }>(response).detail, /schemaVersion must be 2/);
  });

  it('applies a compatible edit as version 2; versions are kept; the next envelope carries schemaVersion 2', async () => {
    const { records } = await h.collect([`${id}.created`]);
    const before = internPayload();
    assert.equal(
      (
        await h.submission.inject({
          method: 'POST',
          url: `/contracts/${id}/records`,
          payload: before,
        })
      ).statusCode,
      202,
    );
    const response = await evolve(withPhone());
    assert.equal(response.statusCode, 201);
    assert.equal(json<{ contract: ContractDefinition }>(response).contract.schemaVersion, 2);
    const versions = json<{
      versions: Array<{ schemaVersion: number; contract: ContractDefinition }>;
    }>(await h.controlPlane.inject({ url: `/contracts/${id}/versions` }));
    assert.deepEqual(
      versions.versions.map((v) => v.schemaVersion),
      [1, 2],
    );
    assert.deepEqual(
      json<{ contract: ContractDefinition }>(
        await h.controlPlane.inject({ url: `/contracts/${id}/versions/1` }),
      ).contract,
      v1,
    );
    assert.equal(
      (await h.controlPlane.inject({ url: `/contracts/${id}/versions/9` })).statusCode,
      404,
    );
    // No redeploy: the running submission service validates against version 2 at once.
    const after = internPayload({ phone: '+44 20 7946 0000' });
    assert.equal(
      (
        await h.submission.inject({
          method: 'POST',
          url: `/contracts/${id}/records`,
          payload: after,
        })
      ).statusCode,
      202,
    );
    await waitFor('both envelopes', () => records.length === 2);
    const versionsSeen = records.map(
      (r) => (JSON.parse(r.value.toString('utf8')) as Envelope).schemaVersion,
    );
    assert.deepEqual(versionsSeen, [1, 2]);
    const listed = json<{ records: Array<{ naturalKey: string; schemaVersion: number }> }>(
      await h.submission.inject({ url: `/contracts/${id}/records` }),
    );
    assert.deepEqual(
      listed.records.map((r) => r.schemaVersion),
      [1, 2],
    );
  });

  it('adding an update-style type to a create-only contract provisions its topic and enables PUT at runtime', async () => {
    const orders = createOnly();
    await h.register(orders);
    const key = { region: 'eu', orderNo: '9' };
    assert.equal(
      (
        await h.submission.inject({
          method: 'POST',
          url: `/contracts/${orders.contractId}/records`,
          payload: key,
        })
      ).statusCode,
      202,
    );
    assert.equal(
      (
        await h.submission.inject({
          method: 'PUT',
          url: `/contracts/${orders.contractId}/records/eu|9`,
          payload: key,
        })
      ).statusCode,
      409,
    );
    const v2 = {
      ...structuredClone(orders),
      schemaVersion: 2,
      recordTypes: [...orders.recordTypes, 'order.amended'],
      lifecycle: { ...orders.lifecycle, 'order.amended': 'update' as const },
    };
    assert.equal((await evolve(v2, orders.contractId)).statusCode, 201);
    const topics = (await h.broker.listTopics()).map((t) => t.name);
    assert.ok(topics.includes(`${orders.contractId}.updated`));
    assert.equal(topics.includes(`${orders.contractId}.deleted`), false);
    const put = await h.submission.inject({
      method: 'PUT',
      url: `/contracts/${orders.contractId}/records/eu|9`,
      payload: { ...key, contact: 'ops@example.org' },
    });
    assert.equal(put.statusCode, 202, put.body);
    assert.equal(json<{ recordType: string }>(put).recordType, 'order.amended');
  });
});

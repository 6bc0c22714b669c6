import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { json, openHarness, type Harness } from '../support/harness.js';
import { createOnly, internsLike, uniqueContractId } from '../support/contracts.js';

describe('control plane: contracts', () => {
  let h: Harness;
  before(async () => {
    h = await openHarness();
  });
  after(async () => h?.close());

  const topicsOf = async (contractId: string) =>
    (await h.broker.listTopics())
      .filter((t) => t.name.startsWith(`${contractId}.`))
      .map((t) => t.name)
      .sort();

  it('registers a contract (201) and provisions a topic per declared lifecycle class', async () => {
    const contract = internsLike();
    const response = await h.controlPlane.inject({
      method: 'POST',
      url: '/contracts',
      payload: contract,
    });
    assert.equal(response.statusCode, 201);
    assert.equal(json<{ contract: { schemaVersion: number } }>(response).contract.schemaVersion, 1);
    assert.deepEqual(await topicsOf(contract.contractId), [
      `${contract.contractId}.created`,
      `${contract.contractId}.deleted`,
      `${contract.contractId}.updated`,
    ]);
    const read = await h.controlPlane.inject({ url: `/contracts/${contract.contractId}` });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(json<{ contract: unknown }>(read).contract, contract);
  });

  it('provisions only the created topic for a create-only contract', async () => {
    const contract = createOnly();
    await h.register(contract);
    assert.deepEqual(await topicsOf(contract.contractId), [`${contract.contractId}.created`]);
  });

  it('answers 409 on an existing contractId and keeps the original', async () => {
    const contract = internsLike();
    await h.register(contract);
    const changed = { ...contract, title: 'Changed' };
    const response = await h.controlPlane.inject({
      method: 'POST',
      url: '/contracts',
      payload: changed,
    });
    assert.equal(response.statusCode, 409);
    assert.match(json<{ detail: string }>(response).detail, /already exists/);
    const read = await h.controlPlane.inject({ url: `/contracts/${contract.contractId}` });
    assert.equal(json<{ contract: { title: string } }>(read).contract.title, 'Interns');
  });

  it('answers 400 with every offending path; nothing persisted, no topic created', async () => {
    const contract = internsLike();
    contract.fields[8]!.default = 'PAUSED';
    contract.naturalKey.fields = ['studentId'];
    contract.fields.push({ name: 'email', type: 'string', required: false });
    (contract.fields[1] as { type: string }).type = 'number';
    delete contract.lifecycle['intern.updated'];
    const response = await h.controlPlane.inject({
      method: 'POST',
      url: '/contracts',
      payload: contract,
    });
    assert.equal(response.statusCode, 400);
    const body = json<{ detail: string; errors: Array<{ path: string; message: string }> }>(
      response,
    );
    assert.deepEqual(body.errors.map((e) => e.path).sort(), [
      'fields[1].type',
      'fields[8].default',
      'fields[9].name',
      'lifecycle.intern.updated',
      'naturalKey.fields[0]',
    ]);
    assert.match(body.detail, /contract definition is invalid/);
    assert.equal(
      (await h.controlPlane.inject({ url: `/contracts/${contract.contractId}` })).statusCode,
      404,
    );
    assert.deepEqual(await topicsOf(contract.contractId), []);
  });

  it('answers 400, not 500, for text the database cannot hold, in the body, the path or the query', async () => {
    const contract = { ...internsLike(), title: 'Interns\u0000' };
    const responses = await Promise.all([
      h.controlPlane.inject({ method: 'POST', url: '/contracts', payload: contract }),
      h.controlPlane.inject({ url: '/contracts/a%00b' }),
      h.controlPlane.inject({ url: '/dead-letters?contractId=a%00b' }),
      h.controlPlane.inject({ url: '/attachments?adapterType=%00' }),
    ]);
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [400, 400, 400, 400],
    );
    assert.match(json<{ detail: string }>(responses[0]!).detail, /NUL character/);
    assert.equal(
      (await h.controlPlane.inject({ url: `/contracts/${contract.contractId}` })).statusCode,
      404,
    );
  });

  it('answers 404 for an unknown contract and lists registered ones', async () => {
    assert.equal(
      (await h.controlPlane.inject({ url: `/contracts/${uniqueContractId('nope')}` })).statusCode,
      404,
    );
    const list = json<{ contracts: Array<{ contractId: string }> }>(
      await h.controlPlane.inject({ url: '/contracts' }),
    );
    assert.ok(list.contracts.length >= 2);
  });
});

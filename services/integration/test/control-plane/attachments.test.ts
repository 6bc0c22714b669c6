/**
 * Adapter type registration and attachments: descriptors with config schemas, liveness,
 * validation of attachment configs against the type's schema (400 quoting the field's
 * description), uniqueness (409), enable/disable, the adapters' feed, and the interns seed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CSV_CONFIG_SCHEMA } from '../../src/adapters/csv/csv-config.js';
import { RELATIONAL_CONFIG_SCHEMA } from '../../src/adapters/relational/relational-config.js';
import { buildControlPlaneApp } from '../../src/control-plane/app.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';
import { silentLogger } from '../helpers/broker-drivers.js';
import { internsLike, uniqueContractId } from '../support/contracts.js';
import { json, openHarness, type Harness } from '../support/harness.js';

const csvDescriptor = {
  type: 'csv',
  description: 'CSV files',
  configSchema: CSV_CONFIG_SCHEMA,
  consumerGroup: 'adapter.csv',
  adminUrl: 'http://127.0.0.1:8082',
};
const relationalDescriptor = {
  type: 'relational',
  description: 'Tables',
  configSchema: RELATIONAL_CONFIG_SCHEMA,
  consumerGroup: 'adapter.relational',
};
type Attachment = {
  attachmentId: string;
  contractId: string;
  adapterType: string;
  config: Record<string, unknown>;
  enabled: boolean;
};

describe('control plane: adapter types and attachments', () => {
  let h: Harness;
  const contract = internsLike();
  const id = contract.contractId;
  before(async () => {
    h = await openHarness();
    await h.register(contract);
  });
  after(async () => h?.close());

  const put = (type: string, body: unknown) =>
    h.controlPlane.inject({
      method: 'PUT',
      url: `/adapter-types/${type}`,
      payload: body as object,
    });
  const attach = (body: unknown, contractId = id) =>
    h.controlPlane.inject({
      method: 'POST',
      url: `/contracts/${contractId}/adapters`,
      payload: body as object,
    });

  it('registers a type with PUT (201, then 200 as a heartbeat) and lists it as live', async () => {
    assert.equal((await put('csv', csvDescriptor)).statusCode, 201);
    const again = await put('csv', csvDescriptor);
    assert.equal(again.statusCode, 200);
    assert.equal((await put('relational', relationalDescriptor)).statusCode, 201);
    const list = json<{
      adapterTypes: Array<{
        type: string;
        live: boolean;
        consumerGroup: string;
        adminUrl?: string;
      }>;
    }>(await h.controlPlane.inject({ url: '/adapter-types' }));
    const csv = list.adapterTypes.find((t) => t.type === 'csv');
    assert.deepEqual(
      { live: csv?.live, group: csv?.consumerGroup, admin: csv?.adminUrl },
      { live: true, group: 'adapter.csv', admin: 'http://127.0.0.1:8082' },
    );
  });

  it('refuses a descriptor whose config fields lack descriptions (400) or that reuses a consumer group (409)', async () => {
    const bad = await put('ftp', {
      ...csvDescriptor,
      type: 'ftp',
      consumerGroup: 'adapter.ftp',
      configSchema: { type: 'object', properties: { host: { type: 'string' } } },
    });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      json<{ errors: Array<{ path: string }> }>(bad).errors.map((e) => e.path),
      ['configSchema.properties.host.description'],
    );
    const shared = await put('ftp', { ...csvDescriptor, type: 'ftp' });
    assert.equal(shared.statusCode, 409);
    assert.match(
      json<{ detail: string }>(shared).detail,
      /adapter\.csv is already used by adapter type csv/,
    );
    assert.equal((await h.controlPlane.inject({ url: '/adapter-types/ftp' })).statusCode, 404);
  });

  it('attaches with a valid config (201), filling the schema defaults', async () => {
    const response = await attach({ adapterType: 'relational', config: { mode: 'generic' } });
    assert.equal(response.statusCode, 201);
    const { attachment } = json<{ attachment: Attachment }>(response);
    assert.deepEqual(attachment.config, { mode: 'generic', table: 'records', tombstone: 'delete' });
    assert.equal(attachment.enabled, true);
  });

  it("refuses an invalid config with 400 quoting the type's own field description; nothing stored", async () => {
    const before = json<{ attachments: Attachment[] }>(
      await h.controlPlane.inject({ url: `/contracts/${id}/adapters` }),
    ).attachments.length;
    const traversal = await attach({
      adapterType: 'csv',
      config: { path: '../../etc/passwd.csv' },
    });
    assert.equal(traversal.statusCode, 400);
    const body = json<{ detail: string; errors: Array<{ path: string; description?: string }> }>(
      traversal,
    );
    assert.ok(body.detail.includes(CSV_CONFIG_SCHEMA.properties.path.description), body.detail);
    assert.equal(body.errors[0]!.path, 'config.path');
    const missing = await attach({ adapterType: 'csv', config: { columns: ['record_id'] } });
    assert.equal(missing.statusCode, 400);
    assert.ok(
      json<{ detail: string }>(missing).detail.includes(
        CSV_CONFIG_SCHEMA.properties.path.description,
      ),
    );
    const badMode = await attach({ adapterType: 'relational', config: { mode: 'fancy' } });
    assert.equal(badMode.statusCode, 400);
    assert.ok(
      json<{ detail: string }>(badMode).detail.includes(
        RELATIONAL_CONFIG_SCHEMA.properties.mode.description,
      ),
    );
    const after = json<{ attachments: Attachment[] }>(
      await h.controlPlane.inject({ url: `/contracts/${id}/adapters` }),
    ).attachments.length;
    assert.equal(after, before);
  });

  it('answers 400 for an unregistered adapter type and 404 for an unknown contract', async () => {
    assert.equal((await attach({ adapterType: 'ftp', config: {} })).statusCode, 400);
    assert.equal(
      (await attach({ adapterType: 'csv', config: { path: 'x.csv' } }, uniqueContractId('nope')))
        .statusCode,
      404,
    );
    assert.equal(
      (await h.controlPlane.inject({ url: `/contracts/${uniqueContractId('nope')}/adapters` }))
        .statusCode,
      404,
    );
  });

  it('answers 409 for the same (contract, type, config), whatever the key order', async () => {
    const first = await attach({
      adapterType: 'csv',
      config: { path: 'dup.csv', columns: ['record_id', 'intern_id'] },
    });
    assert.equal(first.statusCode, 201);
    const second = await attach({
      adapterType: 'csv',
      config: { columns: ['record_id', 'intern_id'], path: 'dup.csv' },
    });
    assert.equal(second.statusCode, 409);
    const other = await attach({ adapterType: 'csv', config: { path: 'other.csv' } });
    assert.equal(other.statusCode, 201);
  });

  it('disables and enables an attachment with PATCH; bad bodies and unknown ids are refused', async () => {
    const { attachment } = json<{ attachment: Attachment }>(
      await attach({ adapterType: 'csv', config: { path: 'toggle.csv' } }),
    );
    const url = `/contracts/${id}/adapters/${attachment.attachmentId}`;
    const off = await h.controlPlane.inject({ method: 'PATCH', url, payload: { enabled: false } });
    assert.equal(off.statusCode, 200);
    assert.equal(json<{ attachment: Attachment }>(off).attachment.enabled, false);
    const listed = json<{ attachments: Attachment[] }>(
      await h.controlPlane.inject({ url: `/contracts/${id}/adapters` }),
    );
    assert.equal(
      listed.attachments.find((a) => a.attachmentId === attachment.attachmentId)?.enabled,
      false,
    );
    const on = await h.controlPlane.inject({ method: 'PATCH', url, payload: { enabled: true } });
    assert.equal(json<{ attachment: Attachment }>(on).attachment.enabled, true);
    assert.equal(
      (await h.controlPlane.inject({ method: 'PATCH', url, payload: { enabled: 'no' } }))
        .statusCode,
      400,
    );
    assert.equal(
      (
        await h.controlPlane.inject({
          method: 'PATCH',
          url,
          payload: { enabled: true, config: {} },
        })
      ).statusCode,
      400,
    );
    assert.equal(
      (
        await h.controlPlane.inject({
          method: 'PATCH',
          url: `/contracts/${id}/adapters/00000000-0000-4000-8000-000000000000`,
          payload: { enabled: true },
        })
      ).statusCode,
      404,
    );
  });

  it('feeds adapters their attachments with the full current contract', async () => {
    const feed = json<{
      attachments: Array<Attachment & { contract: { contractId: string; fields: unknown[] } }>;
    }>(await h.controlPlane.inject({ url: '/attachments?adapterType=csv' }));
    assert.ok(feed.attachments.length >= 3);
    assert.ok(feed.attachments.every((a) => a.adapterType === 'csv'));
    assert.deepEqual(feed.attachments[0]!.contract, contract);
  });

  it('attaches the interns contract to csv and relational once, when each type first registers', async () => {
    const cp = await buildControlPlaneApp({ db: h.db, broker: h.broker, logger: silentLogger() });
    try {
      await h.register(INTERNS_CONTRACT);
      await cp.inject({ method: 'PUT', url: '/adapter-types/csv', payload: csvDescriptor });
      await cp.inject({
        method: 'PUT',
        url: '/adapter-types/relational',
        payload: relationalDescriptor,
      });
      const seeded = json<{ attachments: Attachment[] }>(
        await cp.inject({ url: '/contracts/interns/adapters' }),
      ).attachments;
      assert.deepEqual(seeded.map((a) => a.adapterType).sort(), ['csv', 'relational']);
      assert.equal(seeded.find((a) => a.adapterType === 'relational')!.config.mode, 'shaped');
      const csv = seeded.find((a) => a.adapterType === 'csv')!;
      assert.deepEqual(csv.config.columns, [
        'record_id',
        'intern_id',
        'first_name',
        'last_name',
        'email',
        'college',
        'department',
        'mentor',
        'start_date',
        'status',
        'created_at',
      ]);
      // An operator's change is not overridden by the next registration.
      await cp.inject({
        method: 'PATCH',
        url: `/contracts/interns/adapters/${csv.attachmentId}`,
        payload: { enabled: false },
      });
      await cp.inject({ method: 'PUT', url: '/adapter-types/csv', payload: csvDescriptor });
      const after = json<{ attachments: Attachment[] }>(
        await cp.inject({ url: '/contracts/interns/adapters' }),
      ).attachments;
      assert.equal(after.length, 2);
      assert.equal(after.find((a) => a.adapterType === 'csv')!.enabled, false);
    } finally {
      await cp.close();
    }
  });
});

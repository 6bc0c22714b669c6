/** A relational attachment never writes the platform's own tables (issue 15). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  PLATFORM_TABLES,
  parseRelationalConfig,
  RELATIONAL_CONFIG_SCHEMA,
} from '../../src/adapters/relational/relational-config.js';
import { randomUUID } from 'node:crypto';
import { createRelationalTarget } from '../../src/adapters/relational/relational-target.js';
import {
  allowedTables,
  contractSchema,
  targetTable,
} from '../../src/adapters/relational/target-table.js';
import { RELATIONAL_MIGRATIONS_DIR } from '../../src/adapters/relational/build-relational-adapter.js';
import { UnmappableDataError } from '../../src/adapters/runtime/failures.js';
import { loadMigrations, runMigrations } from '@platform/core';
import { internsLike } from '../support/contracts.js';
import { openHarness, type Harness } from '../support/harness.js';
import { genericRelationalAttachment } from '../support/relational.js';

/** Tables an attachment may write: the generic records table and the shipped shaped interns table. */
const TARGET_TABLES = new Set(['records', 'interns']);

describe('relational attachments stay in their lane', () => {
  let h: Harness;
  before(async () => {
    h = await openHarness();
  });
  after(async () => h?.close());

  it('PLATFORM_TABLES lists every table the platform migrations create (besides attachment targets)', async () => {
    const { rows } = await h.db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const platform = rows
      .map((row) => row.table_name)
      .filter((name) => !TARGET_TABLES.has(name) && !name.startsWith('_'));
    assert.ok(platform.length > 5, `found ${platform.join(', ')}`);
    for (const name of platform)
      assert.ok(PLATFORM_TABLES.includes(name), `${name} is missing from PLATFORM_TABLES`);
  });

  it('the adapter refuses a platform table, and so does the control plane at attach time (400)', async () => {
    for (const table of ['submitted_records', 'contracts', 'broker_group_offsets'])
      assert.throws(() => parseRelationalConfig({ mode: 'shaped', table }), UnmappableDataError);
    assert.equal(parseRelationalConfig({ mode: 'shaped', table: 'interns' }).table, 'interns');

    const contract = internsLike();
    await h.register(contract);
    const registered = await h.controlPlane.inject({
      method: 'PUT',
      url: '/adapter-types/relational',
      payload: {
        type: 'relational',
        description: 'tables',
        configSchema: RELATIONAL_CONFIG_SCHEMA,
        consumerGroup: 'adapter.relational',
      },
    });
    assert.ok(registered.statusCode < 300, registered.body);
    const attach = (table: string) =>
      h.controlPlane.inject({
        method: 'POST',
        url: `/contracts/${contract.contractId}/adapters`,
        payload: { adapterType: 'relational', config: { mode: 'shaped', table } },
      });
    const refused = await attach('submitted_records');
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal((await attach('my_target')).statusCode, 201);
  });

  it("resolves any other table name inside the contract's own schema, one schema per contract id", () => {
    assert.equal(contractSchema('orders_v2'), 'contract_orders_v2');
    const dashed = contractSchema('a-b');
    assert.match(dashed, /^contractx_a_b_[0-9a-f]{10}$/);
    assert.notEqual(dashed, contractSchema('a_b'));
    assert.ok(contractSchema('x'.repeat(63)).length <= 63);
    const allowed = allowedTables(['ledger']);
    assert.deepEqual(targetTable('records', 'orders', allowed), {
      schema: undefined,
      table: 'records',
      sql: '"records"',
    });
    assert.equal(targetTable('ledger', 'orders', allowed).sql, '"ledger"');
    assert.equal(targetTable('mine', 'orders', allowed).sql, '"contract_orders"."mine"');
    assert.throws(() => targetTable('contracts', 'orders', allowed), UnmappableDataError);
    assert.throws(() => allowedTables(['dead_letters']), /table of the platform itself/);
    assert.throws(() => allowedTables(['Bad-Name']), /not a lower-case SQL identifier/);
  });

  it('writes a generic attachment with its own table into the contract schema, never the current schema', async () => {
    await runMigrations(
      h.db,
      'integration-relational-adapter',
      loadMigrations(RELATIONAL_MIGRATIONS_DIR),
    );
    const target = createRelationalTarget(h.db);
    const attachment = genericRelationalAttachment('audit_copy');
    const { contract } = attachment;
    const mapping = await target.resolveMapping(attachment);
    const schema = contractSchema(contract.contractId);
    const envelope = {
      recordId: randomUUID(),
      contractId: contract.contractId,
      recordType: 'intern.created',
      schemaVersion: 1,
      naturalKey: 'I-1',
      occurredAt: new Date().toISOString(),
      traceId: randomUUID(),
      payload: { internId: 'I-1' },
      legacyFlat: false,
      revision: 1,
    };
    const event = { envelope, lifecycle: 'create' as const, attachment };
    assert.equal(await target.write(mapping, target.transform(mapping, event), event), 'written');
    const { rows } = await h.db.query<{ table_schema: string }>(
      "SELECT table_schema FROM information_schema.tables WHERE table_name = 'audit_copy'",
    );
    assert.deepEqual(rows, [{ table_schema: schema }]);
    const landed = await h.db.query<{ natural_key: string }>(
      `SELECT natural_key FROM "${schema}".audit_copy`,
    );
    assert.deepEqual(landed.rows, [{ natural_key: 'I-1' }]);
  });
});

/** A relational attachment never writes the platform's own tables (issue 15). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  PLATFORM_TABLES,
  parseRelationalConfig,
  RELATIONAL_CONFIG_SCHEMA,
} from '../../src/adapters/relational/relational-config.js';
import { UnmappableDataError } from '../../src/adapters/runtime/failures.js';
import { internsLike } from '../support/contracts.js';
import { openHarness, type Harness } from '../support/harness.js';

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
});

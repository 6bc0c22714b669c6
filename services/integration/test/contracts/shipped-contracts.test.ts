/**
 * CI guard (spec 9.2: "an incompatible change … fails CI"): the interns contract shipped in
 * code must stay a BACKWARD-compatible successor of every released version, and moving a
 * stored older version to it goes through the compatibility check at start.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkCompatibility } from '../../src/contracts/compatibility.js';
import type { ContractDefinition } from '../../src/contracts/contract.js';
import { findContract } from '../../src/contracts/contract-store.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';
import { seedInternsContract } from '../../src/control-plane/seed-interns.js';
import { validateDefinition } from '../../src/contracts/validate-definition.js';
import { silentLogger } from '../helpers/broker-drivers.js';
import { internsLike } from '../support/contracts.js';
import { openHarness, type Harness } from '../support/harness.js';

/** Released versions of the interns contract, frozen as they shipped. */
const RELEASED: ContractDefinition[] = [
  {
    contractId: 'interns',
    title: 'Interns',
    schemaVersion: 1,
    naturalKey: { strategy: 'field', fields: ['internId'] },
    recordTypes: ['intern.created', 'intern.updated', 'intern.deleted'],
    lifecycle: {
      'intern.created': 'create',
      'intern.updated': 'update',
      'intern.deleted': 'tombstone',
    },
    fields: [
      { name: 'internId', type: 'string', required: true, queryable: true },
      { name: 'firstName', type: 'string', required: true },
      { name: 'lastName', type: 'string', required: true },
      { name: 'email', type: 'email', required: true },
      { name: 'college', type: 'string', required: true },
      { name: 'department', type: 'string', required: true },
      { name: 'mentor', type: 'string', required: false },
      { name: 'startDate', type: 'date', required: true },
      {
        name: 'status',
        type: 'enum',
        required: true,
        values: ['ACTIVE', 'COMPLETED', 'WITHDRAWN'],
        default: 'ACTIVE',
        queryable: true,
      },
    ],
  },
];

describe('shipped contracts', () => {
  it('the interns contract in code is valid and BACKWARD-compatible with every released version', () => {
    assert.equal(validateDefinition(INTERNS_CONTRACT).ok, true);
    for (const released of RELEASED) {
      assert.ok(INTERNS_CONTRACT.schemaVersion >= released.schemaVersion);
      assert.deepEqual(
        checkCompatibility(released, INTERNS_CONTRACT),
        [],
        `incompatible with released v${released.schemaVersion}`,
      );
    }
  });

  describe('start-up seed', () => {
    let h: Harness;
    before(async () => {
      h = await openHarness();
    });
    after(async () => h?.close());

    it('registers the shipped version once and provisions its topics', async () => {
      await seedInternsContract(h.db, h.broker, silentLogger());
      await seedInternsContract(h.db, h.broker, silentLogger());
      assert.equal(
        (await findContract(h.db, 'interns'))?.contract.schemaVersion,
        INTERNS_CONTRACT.schemaVersion,
      );
      const topics = (await h.broker.listTopics()).map((t) => t.name);
      for (const name of ['interns.created', 'interns.updated', 'interns.deleted'])
        assert.ok(topics.includes(name));
    });

    it('moves a stored older version to a compatible shipped one, and refuses an incompatible one', async () => {
      const v1 = internsLike();
      await seedInternsContract(h.db, h.broker, silentLogger(), v1);
      const incompatible = {
        ...structuredClone(v1),
        schemaVersion: 2,
        fields: v1.fields.filter((f) => f.name !== 'mentor'),
      };
      await assert.rejects(
        seedInternsContract(h.db, h.broker, silentLogger(), incompatible),
        /incompatible contract change/,
      );
      assert.equal((await findContract(h.db, v1.contractId))?.contract.schemaVersion, 1);
      const compatible = {
        ...structuredClone(v1),
        schemaVersion: 2,
        fields: [...v1.fields, { name: 'badge', type: 'string' as const, required: false }],
      };
      await seedInternsContract(h.db, h.broker, silentLogger(), compatible);
      assert.equal((await findContract(h.db, v1.contractId))?.contract.schemaVersion, 2);
    });
  });
});

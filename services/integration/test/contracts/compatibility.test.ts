import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCompatibility } from '../../src/contracts/compatibility.js';
import type { ContractDefinition } from '../../src/contracts/contract.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';

const v1 = INTERNS_CONTRACT;
function next(change: (c: ContractDefinition) => void): ContractDefinition {
  const c = structuredClone(v1);
  c.schemaVersion = 2;
  change(c);
  return c;
}
const rules = (c: ContractDefinition) =>
  checkCompatibility(v1, c).map((i) => `${i.level}:${i.rule}`);

describe('BACKWARD compatibility (spec 9.3), contract and envelope levels', () => {
  it('allows an unchanged contract with a new version number', () => {
    assert.deepEqual(
      checkCompatibility(
        v1,
        next(() => undefined),
      ),
      [],
    );
  });

  it('allows adding an optional field, with or without a default', () => {
    assert.deepEqual(
      rules(next((c) => c.fields.push({ name: 'phone', type: 'string', required: false }))),
      [],
    );
    assert.deepEqual(
      rules(
        next((c) =>
          c.fields.push({ name: 'team', type: 'string', required: false, default: 'core' }),
        ),
      ),
      [],
    );
  });

  it('allows adding a required field only with a default', () => {
    assert.deepEqual(
      rules(
        next((c) =>
          c.fields.push({ name: 'cohort', type: 'string', required: true, default: '2024' }),
        ),
      ),
      [],
    );
    const refused = rules(
      next((c) => c.fields.push({ name: 'cohort', type: 'string', required: true })),
    );
    assert.ok(refused.includes('contract:required-field-without-default'));
    assert.ok(refused.includes('envelope:required-added'));
  });

  it('refuses removing a field consumers depend on, at both levels', () => {
    const refused = rules(next((c) => (c.fields = c.fields.filter((f) => f.name !== 'mentor'))));
    assert.ok(refused.includes('contract:field-removed'));
    assert.ok(refused.includes('envelope:property-removed'));
  });

  it('refuses a rename (a removal plus an addition) and says so', () => {
    const issues = checkCompatibility(
      v1,
      next((c) => (c.fields.find((f) => f.name === 'mentor')!.name = 'supervisor')),
    );
    const removal = issues.find((i) => i.rule === 'field-removed');
    assert.ok(removal);
    assert.match(removal.message, /rename to supervisor/);
  });

  it('allows widening a type (email, date or enum to string) and refuses narrowing', () => {
    assert.deepEqual(
      rules(next((c) => (c.fields.find((f) => f.name === 'email')!.type = 'string'))),
      [],
    );
    assert.deepEqual(
      rules(next((c) => (c.fields.find((f) => f.name === 'startDate')!.type = 'string'))),
      [],
    );
    assert.deepEqual(
      rules(
        next((c) => {
          const status = c.fields.find((f) => f.name === 'status')!;
          status.type = 'string';
          delete status.values;
        }),
      ),
      [],
    );
    const narrowed = rules(
      next((c) => (c.fields.find((f) => f.name === 'college')!.type = 'email')),
    );
    assert.ok(narrowed.includes('contract:type-changed'));
    assert.ok(narrowed.includes('envelope:format-narrowed'));
  });

  it('allows adding an enum value and refuses removing one', () => {
    assert.deepEqual(
      rules(next((c) => c.fields.find((f) => f.name === 'status')!.values!.push('ON_LEAVE'))),
      [],
    );
    const refused = rules(
      next((c) => (c.fields.find((f) => f.name === 'status')!.values = ['ACTIVE', 'COMPLETED'])),
    );
    assert.ok(refused.includes('contract:enum-value-removed'));
    assert.ok(refused.includes('envelope:enum-narrowed'));
  });

  it('refuses changing the natural key', () => {
    assert.ok(
      rules(next((c) => (c.naturalKey.fields = ['email']))).includes(
        'contract:natural-key-changed',
      ),
    );
  });

  it('refuses making an optional field required without a default', () => {
    const refused = rules(
      next((c) => (c.fields.find((f) => f.name === 'mentor')!.required = true)),
    );
    assert.ok(refused.includes('contract:made-required-without-default'));
  });

  it('refuses removing or re-classing a record type, allows adding one', () => {
    const base = structuredClone(v1);
    base.recordTypes = ['intern.created'];
    base.lifecycle = { 'intern.created': 'create' };
    assert.deepEqual(checkCompatibility(base, { ...v1, schemaVersion: 2 }), []);
    const removed = rules(
      next((c) => {
        c.recordTypes = c.recordTypes.filter((t) => t !== 'intern.deleted');
        delete c.lifecycle['intern.deleted'];
      }),
    );
    assert.ok(removed.includes('contract:record-type-removed'));
    assert.ok(removed.includes('envelope:enum-narrowed'));
    const reclassed = rules(next((c) => (c.lifecycle['intern.updated'] = 'create')));
    assert.ok(reclassed.includes('contract:lifecycle-class-changed'));
  });

  it('allows raising or dropping a maxLength, refuses adding or lowering one', () => {
    const capped = next((c) => (c.fields[1]!.maxLength = 100));
    assert.ok(
      checkCompatibility(v1, capped)
        .map((i) => `${i.level}:${i.rule}`)
        .includes('envelope:max-length-lowered'),
    );
    const raised = structuredClone(capped);
    raised.schemaVersion = 3;
    raised.fields[1]!.maxLength = 200;
    assert.deepEqual(checkCompatibility(capped, raised), []);
    const lowered = structuredClone(capped);
    lowered.schemaVersion = 3;
    lowered.fields[1]!.maxLength = 50;
    assert.deepEqual(
      checkCompatibility(capped, lowered).map((i) => i.path),
      ['create:/payload/firstName', 'update:/payload/firstName'],
    );
    const dropped = structuredClone(capped);
    dropped.schemaVersion = 3;
    delete dropped.fields[1]!.maxLength;
    assert.deepEqual(checkCompatibility(capped, dropped), []);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_FIELD_LENGTH_CEILING } from '../../src/contracts/contract.js';
import { validateDefinition } from '../../src/contracts/validate-definition.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';
import { createOnly, internsLike } from '../support/contracts.js';

function pathsOf(input: unknown): string[] {
  const check = validateDefinition(input);
  assert.equal(check.ok, false, 'expected the definition to be refused');
  return check.ok ? [] : check.violations.map((v) => v.path);
}

describe('contract registration checks (spec 2.2)', () => {
  it('accepts the interns contract and a create-only contract', () => {
    assert.equal(validateDefinition(INTERNS_CONTRACT).ok, true);
    const check = validateDefinition(createOnly('orders'));
    assert.ok(check.ok);
    assert.deepEqual(check.contract.lifecycle, { 'order.placed': 'create' });
  });

  it('defaults schemaVersion to 1', () => {
    const { schemaVersion: _v, ...rest } = internsLike('x');
    const check = validateDefinition(rest);
    assert.ok(check.ok);
    assert.equal(check.contract.schemaVersion, 1);
  });

  it('refuses a schemaVersion its integer column cannot hold', () => {
    assert.equal(
      validateDefinition({ ...internsLike('big'), schemaVersion: 2 ** 31 - 1 }).ok,
      true,
    );
    assert.deepEqual(pathsOf({ ...internsLike('big'), schemaVersion: 2 ** 31 }), ['schemaVersion']);
  });

  it('refuses duplicate field names, also after the snake_case mapping', () => {
    const c = internsLike('dups');
    c.fields.push({ name: 'email', type: 'string', required: false });
    assert.deepEqual(pathsOf(c), ['fields[9].name']);
    const e = internsLike('dups3');
    e.fields.push({ name: 'InternId', type: 'string', required: false });
    assert.deepEqual(pathsOf(e), ['fields[9].name']);
  });

  it('refuses unknown types, enum values on non-enums and enums without values', () => {
    const c = internsLike('types');
    (c.fields[1] as { type: string }).type = 'integer';
    c.fields[2]!.values = ['A'];
    delete c.fields[8]!.values;
    delete c.fields[8]!.default;
    assert.deepEqual(pathsOf(c), ['fields[1].type', 'fields[2].values', 'fields[8].values']);
  });

  it('refuses a default outside its own domain', () => {
    const c = internsLike('defaults');
    c.fields[8]!.default = 'PAUSED';
    c.fields[3]!.default = 'not-an-email';
    c.fields[7]!.default = '2024-02-30';
    assert.deepEqual(pathsOf(c), ['fields[3].default', 'fields[7].default', 'fields[8].default']);
  });

  it('takes a maxLength from 1 to the ceiling, and refuses a default longer than it', () => {
    const ok = internsLike('lengths');
    ok.fields[1]!.maxLength = 80;
    const check = validateDefinition(ok);
    assert.ok(check.ok);
    assert.equal(check.contract.fields[1]!.maxLength, 80);
    for (const bad of [0, 1.5, '80', MAX_FIELD_LENGTH_CEILING + 1]) {
      const c = internsLike('lengths');
      (c.fields[1] as unknown as Record<string, unknown>).maxLength = bad;
      assert.deepEqual(pathsOf(c), ['fields[1].maxLength'], String(bad));
    }
    const long = internsLike('lengths');
    long.fields[5]!.default = 'Engineering';
    long.fields[5]!.maxLength = 5;
    assert.deepEqual(pathsOf(long), ['fields[5].default']);
  });

  it('refuses natural-key fields that are undeclared, repeated or optional without default', () => {
    const c = internsLike('keys');
    c.naturalKey.fields = ['internId', 'nope', 'internId', 'mentor'];
    assert.deepEqual(pathsOf(c), [
      'naturalKey.fields[1]',
      'naturalKey.fields[2]',
      'naturalKey.fields[3]',
    ]);
    const s = internsLike('strategy');
    (s.naturalKey as { strategy: string }).strategy = 'uuid';
    assert.deepEqual(pathsOf(s), ['naturalKey.strategy']);
  });

  it('refuses record types without a class, with an unknown class, or classes without a create type', () => {
    const c = internsLike('classes');
    delete c.lifecycle['intern.deleted'];
    (c.lifecycle as Record<string, string>)['intern.updated'] = 'upsert';
    (c.lifecycle as Record<string, string>)['intern.moved'] = 'update';
    assert.deepEqual(pathsOf(c).sort(), [
      'lifecycle.intern.deleted',
      'lifecycle.intern.moved',
      'lifecycle.intern.updated',
    ]);
    const noCreate = internsLike('nocreate');
    noCreate.lifecycle['intern.created'] = 'update';
    assert.ok(pathsOf(noCreate).includes('lifecycle'));
  });

  it('refuses undeclared members, bad ids and non-objects with their paths', () => {
    assert.deepEqual(pathsOf({ ...internsLike('x'), colour: 'red' }), ['colour']);
    assert.deepEqual(
      pathsOf({
        ...internsLike('x'),
        fields: [{ name: 'a', type: 'string', required: true, requird: true }],
      }).sort(),
      ['fields[0].requird', 'naturalKey.fields[0]'],
    );
    assert.deepEqual(pathsOf(internsLike('Bad Id!')), ['contractId']);
    assert.deepEqual(pathsOf([]), ['']);
  });
});

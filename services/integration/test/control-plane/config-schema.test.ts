/** Attachment config validators: compiled per schema text, independent of one another's `$id`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configValidator } from '../../src/control-plane/config-schema.js';

describe('config schema validators', () => {
  it('compiles schemas sharing an $id (two types, or one type changing its schema), each validating by its own rules', () => {
    const property = (type: string) => ({
      type: 'object',
      $id: 'https://adapters.example/config.json',
      properties: { a: { type, description: 'a' } },
    });
    const strings = configValidator(property('string'));
    const integers = configValidator(property('integer'));
    assert.equal(strings({ a: 'x' }), true);
    assert.equal(strings({ a: 1 }), false);
    assert.equal(integers({ a: 1 }), true);
    assert.equal(integers({ a: 'x' }), false);
  });

  it('keeps resolving references inside the schema after it was compiled', () => {
    const validate = configValidator({
      type: 'object',
      $id: 'https://adapters.example/with-refs.json',
      definitions: { path: { type: 'string', pattern: '\\.csv$' } },
      properties: { path: { $ref: '#/definitions/path', description: 'file' } },
    });
    assert.equal(validate({ path: 'a.csv' }), true);
    assert.equal(validate({ path: 'a.txt' }), false);
  });
});

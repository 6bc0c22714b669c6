/** Attachment config validators: compiled per schema text, independent of one another's `$id`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConfigSchemas } from '../../src/control-plane/config-schema.js';
import { ValidatorCache } from '../../src/json-schema/validator-cache.js';

const configValidator = createConfigSchemas().validator;

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

  it('holds at most maxEntries compiled validators, dropping the least recently used', () => {
    const cache = new ValidatorCache({ strict: false }, 2);
    const schema = (n: number) => ({ type: 'object', properties: { n: { const: n } } });
    const first = cache.compile('1', schema(1));
    cache.compile('2', schema(2));
    assert.equal(cache.compile('1', schema(1)), first, 'a hit reuses the compiled validator');
    const third = cache.compile('3', schema(3));
    assert.equal(cache.size, 2);
    assert.equal(cache.compile('1', schema(1)), first, '1 was used last, so 2 was dropped');
    cache.compile('2', schema(2));
    assert.equal(cache.size, 2);
    assert.notEqual(cache.compile('3', schema(3)), third, '3 was dropped for 2 and compiled again');
  });
});

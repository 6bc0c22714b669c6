/** Core's error registry and the table in packages/core/README.md list the same codes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertErrorTableInStep, errorTableOf } from '@platform/testing';
import { coreErrors } from '../../src/errors/core-errors.js';

describe('core error registry', () => {
  it('matches the Errors table of the README, code by code', () => {
    assertErrorTableInStep(coreErrors.definitions, new URL('../../README.md', import.meta.url));
  });

  it('reads a table with escaped pipes and notices a row that differs', () => {
    const markdown = [
      '## Errors',
      '',
      '| code | status | detail |',
      '| --- | --- | --- |',
      '| `A_B` | 400 | left \\| right |',
      '',
      '## Next',
    ].join('\n');
    assert.deepEqual(errorTableOf(markdown), [
      { code: 'A_B', status: 400, detail: 'left | right' },
    ]);
    assert.deepEqual(errorTableOf('# nothing'), []);
  });
});

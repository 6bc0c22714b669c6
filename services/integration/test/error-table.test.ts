/** The service's error registry and the Errors table of its README list the same codes. */
import { describe, it } from 'node:test';
import { assertErrorTableInStep } from '@platform/testing';
import { integrationErrors } from '../src/errors.js';

describe('integration error registry', () => {
  it('matches the Errors table of the README, code by code', () => {
    assertErrorTableInStep(integrationErrors.definitions, new URL('../README.md', import.meta.url));
  });
});

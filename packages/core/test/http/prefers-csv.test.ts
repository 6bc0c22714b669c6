/** Content negotiation for the CSV answers: `text/csv` only when Accept ranks it above JSON. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefersCsv } from '../../src/index.js';

test('text/csv is chosen only when Accept ranks it above JSON', () => {
  assert.equal(prefersCsv(undefined), false, 'no Accept: JSON');
  assert.equal(prefersCsv('*/*'), false);
  assert.equal(prefersCsv('text/csv'), true);
  assert.equal(prefersCsv('Text/CSV; charset=utf-8'), true, 'case and parameters');
  assert.equal(prefersCsv('application/json, text/csv'), false, 'a tie keeps JSON');
  assert.equal(prefersCsv('application/json;q=0.5, text/csv'), true);
  assert.equal(prefersCsv('text/csv;q=0.4, application/json;q=0.9'), false);
  assert.equal(prefersCsv('text/csv;q=0'), false, 'q=0 refuses it');
});

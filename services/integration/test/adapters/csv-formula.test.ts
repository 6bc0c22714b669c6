/** CSV cells that a spreadsheet would run as formulas are written as text (issue 15). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvCellText } from '../../src/adapters/csv/csv-target.js';
import { formatCsvRecord, parseCsv } from '../../src/adapters/csv/rfc4180.js';

test('text starting with = + - @ tab or CR gets a leading apostrophe; numbers and plain text do not', () => {
  const hostile = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'];
  for (const value of hostile) assert.equal(csvCellText(value), `'${value}`);
  assert.equal(csvCellText(-5), '-5');
  assert.equal(csvCellText(3.5), '3.5');
  assert.equal(csvCellText(true), 'true');
  assert.equal(csvCellText('Ada = Lovelace'), 'Ada = Lovelace');
  assert.equal(csvCellText(null), '');
  // Still RFC 4180: the neutralised cell round-trips with its apostrophe.
  const line = formatCsvRecord(hostile.map(csvCellText));
  assert.deepEqual(
    parseCsv(line)[0],
    hostile.map((value) => `'${value}`),
  );
});

/**
 * CSV as both services write it: RFC 4180 quoting that parses back, and cells a
 * spreadsheet would run as formulas written as text (issue 15).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvCellText, formatCsvRecord, parseCsv, toCsv } from '../../src/index.js';

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

test('toCsv writes a header, then each row in column order, quoting and neutralising its cells', () => {
  const rows = [
    { a: 'x,y', b: 'say "hi"' },
    { a: '=HYPERLINK("http://evil")', b: -3.5 },
    { a: '@SUM(A1)', b: null },
    { b: 'line\nbreak' },
  ];
  const csv = toCsv(['a', 'b'], rows);
  assert.equal(
    csv,
    'a,b\r\n"x,y","say ""hi"""\r\n"\'=HYPERLINK(""http://evil"")",-3.5\r\n\'@SUM(A1),\r\n,"line\nbreak"\r\n',
  );
  assert.deepEqual(parseCsv(csv), [
    ['a', 'b'],
    ['x,y', 'say "hi"'],
    ['\'=HYPERLINK("http://evil")', '-3.5'],
    ["'@SUM(A1)", ''],
    ['', 'line\nbreak'],
  ]);
});

import { csvCellText } from './cell-text.js';
import { formatCsvRecord } from './rfc4180.js';

/**
 * A table as RFC 4180 CSV: a header row, then one line per row in `columns`' order, each
 * cell through `csvCellText` (formula-safe).
 */
export function toCsv(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
): string {
  let text = formatCsvRecord(columns.map(csvCellText));
  for (const row of rows)
    text += formatCsvRecord(columns.map((column) => csvCellText(row[column])));
  return text;
}

/**
 * The text of one CSV cell written for people who open it in a spreadsheet.
 *
 * Formula injection: a text value starting with =, +, -, @ (or tab, CR) gets a leading
 * apostrophe, so a spreadsheet shows it instead of running it (OWASP's advice). Numbers
 * and booleans are written as they are (negative numbers included): the file is data, not
 * a formula sheet. Objects are written as JSON; null and undefined as an empty cell.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'string' && FORMULA_START.test(value)) return `'${value}`;
  return String(value);
}

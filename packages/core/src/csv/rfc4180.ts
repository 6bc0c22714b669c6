/**
 * CSV per RFC 4180: fields containing a comma, a double quote, CR or LF are quoted and
 * their quotes doubled; records end with CRLF. `parseCsv` reads such text back (used to
 * adopt a file written before the adapter kept its own state).
 */
const NEEDS_QUOTES = /[",\r\n]/;

export function formatCsvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function formatCsvRecord(values: readonly string[]): string {
  return `${values.map(formatCsvField).join(',')}\r\n`;
}

/** Parses RFC 4180 text into records; tolerates LF-only line ends. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else field += char;
      i += 1;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += char;
    i += 1;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

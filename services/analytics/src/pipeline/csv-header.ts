/**
 * The header line of a source CSV file, read without DuckDB: the column names in file
 * order (a UTF-8 byte order mark and quotes removed), so the load can declare every
 * column as text and read the file exactly once.
 * Errors: `PipelineError` naming the file when it is empty or its header is too long.
 */
import { open } from 'node:fs/promises';
import { PipelineError } from './pipeline-error.js';

/** A header longer than this is not a header. */
const MAX_HEADER_BYTES = 64 * 1024;

export async function readCsvHeader(path: string, file: string): Promise<string[]> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_HEADER_BYTES, 0);
    const text = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\ufeff/, '');
    const end = text.search(/\r?\n/);
    if (end < 0 && bytesRead === MAX_HEADER_BYTES)
      throw new PipelineError(`${file}: not readable as CSV: no header line`);
    const line = end < 0 ? text : text.slice(0, end);
    if (line.trim() === '') throw new PipelineError(`${file}: not readable as CSV: empty file`);
    return splitHeader(line);
  } finally {
    await handle.close();
  }
}

/** Splits a CSV header line on commas outside double quotes; `""` inside quotes is one quote. */
function splitHeader(line: string): string[] {
  const names: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        current += '"';
        i++;
      } else if (char === '"') quoted = false;
      else current += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      names.push(current.trim());
      current = '';
    } else current += char;
  }
  names.push(current.trim());
  return names;
}

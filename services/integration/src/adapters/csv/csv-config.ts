/** Attachment config of the `csv` type (spec 2.4): file path and the ordered column list. */
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { UnmappableDataError } from '../runtime/failures.js';

export interface CsvConfig {
  path: string;
  columns?: string[];
}

const PATH_PATTERN = '^(?!/)(?!.*(^|/)\\.\\.(/|$))[A-Za-z0-9_][A-Za-z0-9_./-]*\\.csv$';
const COLUMN_PATTERN = '^[a-z][a-z0-9_]*$';

export const CSV_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: {
    path: {
      type: 'string',
      pattern: PATH_PATTERN,
      maxLength: 200,
      description:
        "File path ending in .csv, relative to the CSV adapter's data folder (no absolute paths, no '..'). One file per attachment.",
    },
    columns: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', pattern: COLUMN_PATTERN },
      description:
        'Ordered column list (snake_case): record_id, created_at (the event time), record_type, natural_key, contract_id, or the snake_case name of a contract field. Default: record_id, the contract fields in order, created_at.',
    },
  },
} as const;

/** Resolves the file under `baseDir`, refusing anything that would leave it. */
export function resolveCsvPath(baseDir: string, path: unknown): string {
  if (typeof path !== 'string' || !new RegExp(PATH_PATTERN).test(path) || isAbsolute(path)) {
    throw new UnmappableDataError(`csv config: invalid path ${JSON.stringify(path)}`);
  }
  const base = resolve(baseDir);
  const full = resolve(base, normalize(path));
  const rel = relative(base, full);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new UnmappableDataError(`csv config: path ${path} leaves the data folder`);
  }
  return full;
}

export function stateDirFor(baseDir: string, attachmentId: string): string {
  return join(resolve(baseDir), '.state', attachmentId.replace(/[^A-Za-z0-9_-]/g, '_'));
}

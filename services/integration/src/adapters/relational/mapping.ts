/** What the relational target resolves an attachment to (see `relational-target.ts`). */
import { UnmappableDataError } from '../runtime/failures.js';
import { IDENTIFIER, type RelationalConfig } from './relational-config.js';

interface BaseMapping extends RelationalConfig {
  attachmentId: string;
  /** The quoted, qualified table statements write (see `target-table.ts`). */
  sqlTable: string;
}
export interface GenericMapping extends BaseMapping {
  mode: 'generic';
}
export interface ShapedMapping extends BaseMapping {
  mode: 'shaped';
  /** Column ← payload field, in table order used for inserts. */
  columns: Array<{ column: string; field: string }>;
  keyColumn: string;
}
export type Mapping = GenericMapping | ShapedMapping;
export type Row = Record<string, unknown>;

/** A checked, quoted SQL identifier (identifiers never come from parameters). */
export const q = (identifier: string) => {
  if (!IDENTIFIER.test(identifier))
    throw new UnmappableDataError(`invalid SQL identifier ${identifier}`);
  return `"${identifier}"`;
};

/**
 * Whether a value lies in a field's domain: one check shared by payload validation and
 * by the registration rule that a `default` must fall within its own field's domain.
 * Returns the reason a value is outside, or undefined when it is inside.
 */
import type { FieldDefinition } from './contract.js';

/** Pragmatic address check (what HTML forms accept): local part, `@`, dotted domain. */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isValidDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export function domainViolation(
  field: Pick<FieldDefinition, 'type' | 'values'>,
  value: unknown,
): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  switch (field.type) {
    case 'string':
      return undefined;
    case 'email':
      return isValidEmail(value) ? undefined : 'must be a valid email address';
    case 'date':
      return isValidDate(value) ? undefined : 'must be a date in YYYY-MM-DD form';
    case 'enum':
      return field.values?.includes(value)
        ? undefined
        : `must be one of ${(field.values ?? []).join(', ')}`;
  }
}

/** Length in Unicode code points (what a contract's `maxLength` and JSON Schema count). */
export function codePointLength(value: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return value.length - surrogatePairs;
}

/** Whether a value is longer than `max` code points; cheap for the common short value. */
export function longerThan(value: string, max: number): boolean {
  // Code points never outnumber UTF-16 units, and at most halve them.
  if (value.length <= max) return false;
  if (value.length > 2 * max) return true;
  return codePointLength(value) > max;
}

/** Absent or blank: the cases where a default applies (section 2.2 rule 1). */
export function isBlank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

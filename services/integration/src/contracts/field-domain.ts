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

/** Absent or blank: the cases where a default applies (section 2.2 rule 1). */
export function isBlank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

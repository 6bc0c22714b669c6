/**
 * Payload validation against a contract (producer strict, section 9.4): defaults applied
 * to absent or blank fields before the required check, undeclared keys refused, every
 * value checked against its field's domain. Returns the clean payload or field-level
 * errors; nothing is thrown.
 */
import { NATURAL_KEY_SEPARATOR, type ContractDefinition } from './contract.js';
import { domainViolation, isBlank, longerThan } from './field-domain.js';

export interface FieldError {
  /** The payload key the error is about. */
  field: string;
  message: string;
}

export type Payload = Record<string, string>;

export type PayloadCheck = { ok: true; payload: Payload } | { ok: false; errors: FieldError[] };

export interface PayloadLimits {
  /** Longest value (code points) of a field whose contract declares no `maxLength`. */
  defaultMaxLength: number;
}

/**
 * The platform's default field length (`FIELD_MAX_LENGTH`): long enough for any text a
 * person types into a form, short enough that one field cannot fill a broker message.
 */
export const DEFAULT_FIELD_MAX_LENGTH = 10_000;

const DEFAULT_LIMITS: PayloadLimits = { defaultMaxLength: DEFAULT_FIELD_MAX_LENGTH };

/** Validates a full payload (create and update-style records). */
export function validatePayload(
  contract: ContractDefinition,
  input: unknown,
  limits: PayloadLimits = DEFAULT_LIMITS,
): PayloadCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: '', message: 'the payload must be a JSON object' }] };
  }
  const given = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  const payload: Payload = {};
  const declared = new Set(contract.fields.map((field) => field.name));
  for (const key of Object.keys(given)) {
    if (!declared.has(key))
      errors.push({ field: key, message: 'is not a declared field of this contract' });
  }
  for (const field of contract.fields) {
    let value = given[field.name];
    if (isBlank(value) && field.default !== undefined) value = field.default;
    if (isBlank(value)) {
      if (field.required) errors.push({ field: field.name, message: 'is required' });
      continue;
    }
    const maxLength = field.maxLength ?? limits.defaultMaxLength;
    const reason =
      typeof value === 'string' && longerThan(value, maxLength)
        ? `must be at most ${maxLength} characters`
        : domainViolation(field, value);
    if (reason) errors.push({ field: field.name, message: reason });
    else payload[field.name] = value as string;
  }
  if (contract.naturalKey.fields.length > 1) {
    for (const name of contract.naturalKey.fields) {
      if (payload[name]?.includes(NATURAL_KEY_SEPARATOR)) {
        errors.push({
          field: name,
          message: `must not contain "${NATURAL_KEY_SEPARATOR}" (it joins the parts of the natural key)`,
        });
      }
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, payload };
}

/** The natural key of a valid payload: the key fields' values joined with `|`. */
export function naturalKeyOf(contract: ContractDefinition, payload: Payload): string {
  return contract.naturalKey.fields.map((name) => payload[name] ?? '').join(NATURAL_KEY_SEPARATOR);
}

/** The minimal payload of a tombstone: only the natural-key fields. */
export function tombstonePayload(contract: ContractDefinition, payload: Payload): Payload {
  return Object.fromEntries(contract.naturalKey.fields.map((name) => [name, payload[name] ?? '']));
}

/**
 * Registration checks of a contract definition (spec section 2.2): the shape of every
 * member, unique field names (also after the snake_case mapping used by targets), known
 * types, enum values only on enums, defaults inside their own field's domain, natural-key
 * fields declared and always present, record types each classed create, update or
 * tombstone (exactly one create, at most one of each other class).
 *
 * Returns the definition normalised (defaults filled) or the list of violations, each
 * with the offending path (`fields[2].default`); nothing is thrown.
 */
import {
  columnName,
  FIELD_TYPES,
  LIFECYCLE_CLASSES,
  MAX_FIELD_LENGTH_CEILING,
  type ContractDefinition,
  type FieldDefinition,
  type FieldType,
  type LifecycleClass,
} from './contract.js';
import { codePointLength, domainViolation } from './field-domain.js';

export interface DefinitionViolation {
  path: string;
  message: string;
}

export type DefinitionCheck =
  { ok: true; contract: ContractDefinition } | { ok: false; violations: DefinitionViolation[] };

const CONTRACT_ID = /^[a-z][a-z0-9_-]{0,62}$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
const RECORD_TYPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Versions are stored in PostgreSQL `integer` columns. */
const MAX_SCHEMA_VERSION = 2 ** 31 - 1;
const CONTRACT_KEYS = [
  'contractId',
  'title',
  'schemaVersion',
  'naturalKey',
  'recordTypes',
  'lifecycle',
  'fields',
];
const FIELD_KEYS = ['name', 'type', 'required', 'queryable', 'values', 'default', 'maxLength'];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function validateDefinition(input: unknown): DefinitionCheck {
  const violations: DefinitionViolation[] = [];
  const fail = (path: string, message: string) => violations.push({ path, message });
  if (!isObject(input))
    return { ok: false, violations: [{ path: '', message: 'must be a JSON object' }] };

  for (const key of Object.keys(input))
    if (!CONTRACT_KEYS.includes(key)) fail(key, 'is not a contract member');

  const { contractId, title } = input;
  if (typeof contractId !== 'string' || !CONTRACT_ID.test(contractId)) {
    fail(
      'contractId',
      'must be 1-63 characters: a lower-case letter, then lower-case letters, digits, _ or -',
    );
  }
  if (typeof title !== 'string' || title.trim() === '') fail('title', 'must be a non-empty string');
  const schemaVersion = input.schemaVersion ?? 1;
  if (!Number.isInteger(schemaVersion) || (schemaVersion as number) < 1) {
    fail('schemaVersion', 'must be a positive integer');
  } else if ((schemaVersion as number) > MAX_SCHEMA_VERSION) {
    fail('schemaVersion', `must be at most ${MAX_SCHEMA_VERSION}`);
  }

  const fields = checkFields(input.fields, fail);
  const naturalKey = checkNaturalKey(input.naturalKey, fields, fail);
  const { recordTypes, lifecycle } = checkRecordTypes(input.recordTypes, input.lifecycle, fail);

  if (violations.length > 0) return { ok: false, violations };
  return {
    ok: true,
    contract: {
      contractId: contractId as string,
      title: (title as string).trim(),
      schemaVersion: schemaVersion as number,
      naturalKey,
      recordTypes,
      lifecycle,
      fields,
    },
  };
}

type Fail = (path: string, message: string) => void;

function checkFields(input: unknown, fail: Fail): FieldDefinition[] {
  if (!Array.isArray(input) || input.length === 0) {
    fail('fields', 'must be a non-empty array of field definitions');
    return [];
  }
  const names = new Map<string, number>();
  const columns = new Map<string, number>();
  const fields: FieldDefinition[] = [];
  input.forEach((raw, index) => {
    const at = `fields[${index}]`;
    if (!isObject(raw)) return fail(at, 'must be an object');
    for (const key of Object.keys(raw))
      if (!FIELD_KEYS.includes(key)) fail(`${at}.${key}`, 'is not a field member');
    const { name, type, required, queryable, values, maxLength } = raw;
    if (typeof name !== 'string' || !FIELD_NAME.test(name)) {
      fail(`${at}.name`, 'must be 1-63 letters or digits, starting with a letter');
    } else if (names.has(name)) {
      fail(`${at}.name`, `duplicates the name of fields[${names.get(name)}]`);
    } else if (columns.has(columnName(name))) {
      fail(
        `${at}.name`,
        `maps to the same column (${columnName(name)}) as fields[${columns.get(columnName(name))}]`,
      );
    } else {
      names.set(name, index);
      columns.set(columnName(name), index);
    }
    if (!FIELD_TYPES.includes(type as FieldType))
      fail(`${at}.type`, `must be one of ${FIELD_TYPES.join(', ')}`);
    if (typeof required !== 'boolean') fail(`${at}.required`, 'must be true or false');
    if (queryable !== undefined && typeof queryable !== 'boolean')
      fail(`${at}.queryable`, 'must be true or false');
    if (type === 'enum') {
      const valid =
        Array.isArray(values) &&
        values.length > 0 &&
        values.every((v) => typeof v === 'string' && v !== '') &&
        new Set(values).size === values.length;
      if (!valid) fail(`${at}.values`, 'must be a non-empty array of distinct non-empty strings');
    } else if (values !== undefined) {
      fail(`${at}.values`, 'is only allowed on enum fields');
    }
    const lengthOk =
      maxLength === undefined ||
      (Number.isInteger(maxLength) &&
        (maxLength as number) >= 1 &&
        (maxLength as number) <= MAX_FIELD_LENGTH_CEILING);
    if (!lengthOk)
      fail(`${at}.maxLength`, `must be an integer from 1 to ${MAX_FIELD_LENGTH_CEILING}`);
    else if (
      maxLength !== undefined &&
      typeof raw.default === 'string' &&
      codePointLength(raw.default) > (maxLength as number)
    )
      fail(`${at}.default`, `is longer than the field's maxLength (${String(maxLength)})`);
    if (raw.default !== undefined) {
      const reason = FIELD_TYPES.includes(type as FieldType)
        ? domainViolation({ type: type as FieldType, values: values as string[] }, raw.default)
        : undefined;
      if (reason) fail(`${at}.default`, `is outside the field's own domain: ${reason}`);
      else if (typeof raw.default === 'string' && raw.default.trim() === '')
        fail(`${at}.default`, 'must not be blank');
    }
    const field: FieldDefinition = {
      name: name as string,
      type: type as FieldType,
      required: required as boolean,
    };
    if (queryable !== undefined) field.queryable = queryable as boolean;
    if (values !== undefined) field.values = [...(values as string[])];
    if (raw.default !== undefined) field.default = raw.default as string;
    if (maxLength !== undefined) field.maxLength = maxLength as number;
    fields.push(field);
  });
  return fields;
}

function checkNaturalKey(
  input: unknown,
  fields: FieldDefinition[],
  fail: Fail,
): ContractDefinition['naturalKey'] {
  const empty = { strategy: 'field' as const, fields: [] };
  if (!isObject(input)) {
    fail('naturalKey', 'must be an object with strategy and fields');
    return empty;
  }
  for (const key of Object.keys(input))
    if (key !== 'strategy' && key !== 'fields')
      fail(`naturalKey.${key}`, 'is not a natural-key member');
  if (input.strategy !== 'field') fail('naturalKey.strategy', 'must be "field"');
  if (!Array.isArray(input.fields) || input.fields.length === 0) {
    fail('naturalKey.fields', 'must be a non-empty array of declared field names');
    return empty;
  }
  const seen = new Set<string>();
  input.fields.forEach((name, index) => {
    const at = `naturalKey.fields[${index}]`;
    const field = fields.find((f) => f.name === name);
    if (typeof name !== 'string' || !field)
      return fail(at, `references an undeclared field: ${JSON.stringify(name)}`);
    if (seen.has(name)) return fail(at, `repeats ${name}`);
    seen.add(name);
    if (!field.required && field.default === undefined)
      fail(at, `${name} must be required (or have a default): every record needs a natural key`);
  });
  return { strategy: 'field', fields: [...(input.fields as string[])] };
}

function checkRecordTypes(
  typesInput: unknown,
  lifecycleInput: unknown,
  fail: Fail,
): { recordTypes: string[]; lifecycle: Record<string, LifecycleClass> } {
  const recordTypes: string[] = [];
  const lifecycle: Record<string, LifecycleClass> = {};
  if (!Array.isArray(typesInput) || typesInput.length === 0) {
    fail('recordTypes', 'must be a non-empty array of record type names');
  } else {
    typesInput.forEach((type, index) => {
      if (typeof type !== 'string' || !RECORD_TYPE.test(type))
        fail(`recordTypes[${index}]`, 'must be a record type name (letters, digits, ., _, -)');
      else if (recordTypes.includes(type)) fail(`recordTypes[${index}]`, `repeats ${type}`);
      else recordTypes.push(type);
    });
  }
  if (!isObject(lifecycleInput)) {
    fail('lifecycle', 'must map every record type to its class: create, update or tombstone');
    return { recordTypes, lifecycle };
  }
  for (const [type, cls] of Object.entries(lifecycleInput)) {
    if (!recordTypes.includes(type))
      fail(`lifecycle.${type}`, 'is not one of the declared recordTypes');
    else if (!LIFECYCLE_CLASSES.includes(cls as LifecycleClass))
      fail(`lifecycle.${type}`, `must be one of ${LIFECYCLE_CLASSES.join(', ')}`);
    else lifecycle[type] = cls as LifecycleClass;
  }
  for (const type of recordTypes) {
    if (!(type in lifecycleInput))
      fail(
        `lifecycle.${type}`,
        'is missing: every record type must be classed create, update or tombstone',
      );
  }
  for (const cls of LIFECYCLE_CLASSES) {
    const ofClass = recordTypes.filter((type) => lifecycle[type] === cls);
    if (ofClass.length > 1)
      fail(
        'lifecycle',
        `declares ${ofClass.length} ${cls} types (${ofClass.join(', ')}); at most one is allowed`,
      );
  }
  if (recordTypes.length > 0 && !recordTypes.some((type) => lifecycle[type] === 'create')) {
    if (Object.keys(lifecycle).length === recordTypes.length)
      fail('lifecycle', 'must declare exactly one create record type');
  }
  return { recordTypes, lifecycle };
}

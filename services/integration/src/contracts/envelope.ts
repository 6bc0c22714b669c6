/**
 * The envelope (spec section 2.1): built by the submission service around a validated
 * payload, then checked against the envelope's JSON schema for the contract (Ajv) before
 * anything is published. The envelope schema leaves additional properties open; the
 * payload part is strict for the producer.
 */
import type { ValidateFunction } from 'ajv';
import { ValidatorCache } from '../json-schema/validator-cache.js';
import type { ContractDefinition, LifecycleClass } from './contract.js';
import { naturalKeyOf, type Payload } from './payload.js';

export interface Envelope {
  recordId: string;
  contractId: string;
  recordType: string;
  schemaVersion: number;
  naturalKey: string;
  /** ISO-8601 UTC, set at publish time. */
  occurredAt: string;
  traceId: string;
  payload: Payload;
  /**
   * Position of this event in its key's history (1 for the first create, +1 for every
   * later event, a re-create included): targets apply an event only when it is newer
   * than what they hold, whatever topic or partition it came through.
   */
  revision?: number;
}

type JsonSchema = Record<string, unknown>;

const FIELD_SCHEMA: Record<string, (values?: string[]) => JsonSchema> = {
  string: () => ({ type: 'string' }),
  email: () => ({ type: 'string', format: 'email' }),
  date: () => ({ type: 'string', format: 'date' }),
  enum: (values) => ({ type: 'string', enum: values ?? [] }),
};

/** JSON schema of a contract's full payload (create and update-style records). */
export function payloadSchema(contract: ContractDefinition): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      contract.fields.map((f) => [
        f.name,
        {
          ...FIELD_SCHEMA[f.type]!(f.values),
          ...(f.maxLength === undefined ? {} : { maxLength: f.maxLength }),
          ...(f.default === undefined ? {} : { default: f.default }),
        },
      ]),
    ),
    required: contract.fields.filter((f) => f.required).map((f) => f.name),
    additionalProperties: false,
  };
}

/** JSON schema of a tombstone's minimal payload: the natural-key fields. */
export function tombstoneSchema(contract: ContractDefinition): JsonSchema {
  const keyFields = contract.fields.filter((f) => contract.naturalKey.fields.includes(f.name));
  return {
    type: 'object',
    properties: Object.fromEntries(keyFields.map((f) => [f.name, FIELD_SCHEMA[f.type]!(f.values)])),
    required: contract.naturalKey.fields,
    additionalProperties: false,
  };
}

/** JSON schema of an envelope of this contract for one lifecycle class. */
export function envelopeSchema(
  contract: ContractDefinition,
  lifecycleClass: LifecycleClass = 'create',
): JsonSchema {
  const uuid = { type: 'string', format: 'uuid' };
  return {
    type: 'object',
    required: [
      'recordId',
      'contractId',
      'recordType',
      'schemaVersion',
      'naturalKey',
      'occurredAt',
      'traceId',
      'payload',
    ],
    properties: {
      recordId: uuid,
      contractId: { type: 'string', const: contract.contractId },
      recordType: { type: 'string', enum: contract.recordTypes },
      schemaVersion: { type: 'integer', minimum: 1 },
      naturalKey: { type: 'string', minLength: 1 },
      occurredAt: { type: 'string', format: 'date-time' },
      traceId: uuid,
      revision: { type: 'integer', minimum: 1 },
      payload: lifecycleClass === 'tombstone' ? tombstoneSchema(contract) : payloadSchema(contract),
    },
    additionalProperties: true,
  };
}

/** Checks built envelopes against their contract's envelope schema (created by the submission service). */
export interface EnvelopeValidator {
  /** The schema violations of an envelope (empty when valid). */
  violations(
    contract: ContractDefinition,
    lifecycleClass: LifecycleClass,
    envelope: unknown,
  ): string[];
}

export function createEnvelopeValidator(maxValidators?: number): EnvelopeValidator {
  const cache = new ValidatorCache({ allErrors: true, strict: true }, maxValidators);
  // By definition object first: a cached contract is validated without serialising it again.
  const byObject = new WeakMap<ContractDefinition, Map<LifecycleClass, ValidateFunction>>();
  const validatorFor = (contract: ContractDefinition, lifecycleClass: LifecycleClass) => {
    const known = byObject.get(contract)?.get(lifecycleClass);
    if (known) return known;
    const key = `${contract.contractId}@${contract.schemaVersion}:${lifecycleClass}:${JSON.stringify(contract)}`;
    const validate = cache.compile(key, envelopeSchema(contract, lifecycleClass));
    const perClass = byObject.get(contract) ?? new Map<LifecycleClass, ValidateFunction>();
    perClass.set(lifecycleClass, validate);
    byObject.set(contract, perClass);
    return validate;
  };
  return {
    violations(contract, lifecycleClass, envelope) {
      const validate = validatorFor(contract, lifecycleClass);
      if (validate(envelope)) return [];
      return (validate.errors ?? []).map(
        (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`,
      );
    },
  };
}

export interface EnvelopeIdentity {
  recordId: string;
  traceId: string;
  occurredAt: Date;
}

export function buildEnvelope(
  contract: ContractDefinition,
  recordType: string,
  payload: Payload,
  identity: EnvelopeIdentity,
  naturalKey: string = naturalKeyOf(contract, payload),
): Envelope {
  return {
    recordId: identity.recordId,
    contractId: contract.contractId,
    recordType,
    schemaVersion: contract.schemaVersion,
    naturalKey,
    occurredAt: identity.occurredAt.toISOString(),
    traceId: identity.traceId,
    payload,
  };
}

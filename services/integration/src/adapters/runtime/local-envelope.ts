/**
 * Deserialization into the adapters' own local shape (never a type shared with the
 * submission service). Reads two forms and ignores unknown properties:
 *
 * - the envelope (spec 2.1): recordId, contractId, recordType, schemaVersion, naturalKey,
 *   occurredAt (ISO-8601), traceId, payload;
 * - the flat form of the first releases on `intern.created`: top-level recordId, the
 *   intern payload fields and createdAt, no contractId. It is read as an interns
 *   envelope: the payload fields are wrapped in `payload` under their own names, the
 *   envelope fields are added around them, and `createdAt` is kept (and is the event time).
 *
 * Throws `DeserializationError` (→ SCHEMA_VIOLATION) for anything else.
 */
import type { BrokerRecord } from '../../broker/broker.js';
import { DeserializationError } from './failures.js';

export interface LocalEnvelope {
  recordId: string;
  contractId: string;
  recordType: string;
  schemaVersion: number;
  naturalKey: string;
  occurredAt: string;
  /** Absent only on flat messages of the first releases; then the recordId stands in for it. */
  traceId: string;
  payload: Record<string, unknown>;
  /** True when read from the flat form. */
  legacyFlat: boolean;
  /** Position in the key's history (envelope field `revision`); absent on envelopes of earlier releases. */
  revision?: number;
}

export const LEGACY_FLAT_TOPIC = 'intern.created';
const LEGACY = {
  contractId: 'interns',
  recordType: 'intern.created',
  schemaVersion: 1,
  keyField: 'internId',
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new DeserializationError(`${field} must be a non-empty string`);
  return value;
}

function requireTimestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
    throw new DeserializationError(`${field} must be an ISO-8601 timestamp string`);
  }
  return value;
}

function requireUuid(value: unknown, field: string): string {
  const text = requireString(value, field);
  if (!UUID.test(text)) throw new DeserializationError(`${field} must be a UUID`);
  return text;
}

export function parseJsonObject(value: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch (error) {
    throw new DeserializationError(`message is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new DeserializationError('message is not a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** Reads `contractId` off a message even when the rest is broken (for the dead letter). */
export function peekContractId(record: BrokerRecord): string | null {
  try {
    const body = parseJsonObject(record.value);
    if (typeof body.contractId === 'string') return body.contractId;
    return record.topic === LEGACY_FLAT_TOPIC ? LEGACY.contractId : null;
  } catch {
    return null;
  }
}

export function deserialize(record: BrokerRecord): LocalEnvelope {
  const body = parseJsonObject(record.value);
  if (
    body.contractId === undefined &&
    record.topic === LEGACY_FLAT_TOPIC &&
    body.payload === undefined
  ) {
    return fromFlat(body, record);
  }
  const payload = body.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new DeserializationError('payload must be an object');
  }
  const schemaVersion = body.schemaVersion;
  if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion) || schemaVersion < 1) {
    throw new DeserializationError('schemaVersion must be a positive integer');
  }
  const recordId = requireUuid(body.recordId, 'recordId');
  return {
    recordId,
    contractId: requireString(body.contractId, 'contractId'),
    recordType: requireString(body.recordType, 'recordType'),
    schemaVersion,
    naturalKey: requireString(body.naturalKey, 'naturalKey'),
    occurredAt: requireTimestamp(body.occurredAt, 'occurredAt'),
    traceId: body.traceId === undefined ? recordId : requireUuid(body.traceId, 'traceId'),
    payload: payload as Record<string, unknown>,
    legacyFlat: false,
    ...(Number.isSafeInteger(body.revision) && (body.revision as number) >= 1
      ? { revision: body.revision as number }
      : {}),
  };
}

function fromFlat(body: Record<string, unknown>, record: BrokerRecord): LocalEnvelope {
  const recordId = requireUuid(body.recordId, 'recordId');
  const createdAt = requireTimestamp(body.createdAt, 'createdAt');
  const { recordId: _id, createdAt: _at, traceId, ...payload } = body;
  const naturalKey =
    typeof payload[LEGACY.keyField] === 'string'
      ? (payload[LEGACY.keyField] as string)
      : record.key;
  return {
    recordId,
    contractId: LEGACY.contractId,
    recordType: LEGACY.recordType,
    schemaVersion: LEGACY.schemaVersion,
    naturalKey: requireString(naturalKey, 'naturalKey'),
    occurredAt: createdAt,
    traceId:
      typeof traceId === 'string' && UUID.test(traceId)
        ? traceId
        : (record.headers.traceId ?? recordId),
    payload,
    legacyFlat: true,
  };
}

/** The envelope form of a local envelope (what the webhook posts). */
export function toEnvelopeJson(envelope: LocalEnvelope): Record<string, unknown> {
  const { legacyFlat: _flat, ...rest } = envelope;
  return rest;
}

/** Test data: the interns contract as adapters see it, envelopes, flat messages. */
import { randomUUID } from 'node:crypto';
import type { ContractView } from '../../src/adapters/runtime/attachment.js';
import type { LocalEnvelope } from '../../src/adapters/runtime/local-envelope.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';

/** The interns contract of spec 2.3, as the control plane registers it. */
export const INTERNS: ContractView = INTERNS_CONTRACT;

/** A create-only contract (spec rule 8) with its own id. */
export function createOnlyContract(contractId: string): ContractView {
  return {
    contractId,
    schemaVersion: 1,
    naturalKey: { fields: ['sku'] },
    recordTypes: ['product.created'],
    lifecycle: { 'product.created': 'create' },
    fields: [
      { name: 'sku', type: 'string', required: true, queryable: true },
      { name: 'name', type: 'string', required: true },
    ],
  };
}

export function internPayload(
  internId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    internId,
    firstName: 'Ada',
    lastName: 'Lovelace, Countess',
    email: `${internId}@example.org`,
    college: 'Analytical "Engine" College',
    department: 'Mathematics',
    mentor: 'Babbage',
    startDate: '2026-01-05',
    status: 'ACTIVE',
    ...overrides,
  };
}

export type TestEnvelope = Omit<LocalEnvelope, 'legacyFlat'>;

let clock = Date.parse('2026-03-01T00:00:00.000Z');
/** Strictly increasing occurredAt values, so later events are newer. */
export const nextTimestamp = () => new Date((clock += 1000)).toISOString();

export function envelope(
  contractId: string,
  recordType: string,
  naturalKey: string,
  payload: Record<string, unknown>,
): TestEnvelope {
  return {
    recordId: randomUUID(),
    contractId,
    recordType,
    schemaVersion: 1,
    naturalKey,
    occurredAt: nextTimestamp(),
    traceId: randomUUID(),
    payload,
  };
}

export const internCreated = (id: string, overrides: Record<string, unknown> = {}) =>
  envelope('interns', 'intern.created', id, internPayload(id, overrides));
export const internUpdated = (id: string, overrides: Record<string, unknown> = {}) =>
  envelope('interns', 'intern.updated', id, internPayload(id, overrides));
export const internDeleted = (id: string) =>
  envelope('interns', 'intern.deleted', id, { internId: id });

/** A message of the first releases: flat fields, recordId, createdAt, no contractId. */
export function flatIntern(id: string): Record<string, unknown> {
  return { recordId: randomUUID(), ...internPayload(id), createdAt: nextTimestamp() };
}

export const topicOf = (e: TestEnvelope) =>
  `${e.contractId}.${{ 'intern.created': 'created', 'intern.updated': 'updated', 'intern.deleted': 'deleted', 'product.created': 'created' }[e.recordType] ?? 'created'}`;

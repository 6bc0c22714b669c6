/** Contract definitions and payloads the integration tests share. */
import { randomBytes } from 'node:crypto';
import type { ContractDefinition } from '../../src/contracts/contract.js';
import { INTERNS_CONTRACT } from '../../src/contracts/interns-contract.js';

export const uniqueContractId = (base = 'c') => `${base}_${randomBytes(4).toString('hex')}`;

/** The interns contract under another id (so tests do not collide). */
export function internsLike(contractId = uniqueContractId('interns')): ContractDefinition {
  return { ...structuredClone(INTERNS_CONTRACT), contractId };
}

/** A create-only contract with a composite natural key. */
export function createOnly(contractId = uniqueContractId('orders')): ContractDefinition {
  return {
    contractId,
    title: 'Orders',
    schemaVersion: 1,
    naturalKey: { strategy: 'field', fields: ['region', 'orderNo'] },
    recordTypes: ['order.placed'],
    lifecycle: { 'order.placed': 'create' },
    fields: [
      { name: 'region', type: 'string', required: true },
      { name: 'orderNo', type: 'string', required: true },
      { name: 'contact', type: 'email', required: false },
    ],
  };
}

let counter = 0;
export function internPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    internId: `I-${Date.now().toString(36)}-${counter}-${randomBytes(2).toString('hex')}`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.org',
    college: 'Analytical College, London',
    department: 'Engineering',
    startDate: '2024-09-01',
    ...overrides,
  };
}

/**
 * The worked contract of spec section 2.3, registered at first start and attached to the
 * relational adapter (shaped mode) and the csv adapter.
 */
import type { ContractDefinition } from './contract.js';

export const INTERNS_CONTRACT_ID = 'interns';

export const INTERNS_CONTRACT: ContractDefinition = {
  contractId: INTERNS_CONTRACT_ID,
  title: 'Interns',
  schemaVersion: 1,
  naturalKey: { strategy: 'field', fields: ['internId'] },
  recordTypes: ['intern.created', 'intern.updated', 'intern.deleted'],
  lifecycle: {
    'intern.created': 'create',
    'intern.updated': 'update',
    'intern.deleted': 'tombstone',
  },
  fields: [
    { name: 'internId', type: 'string', required: true, queryable: true },
    { name: 'firstName', type: 'string', required: true },
    { name: 'lastName', type: 'string', required: true },
    { name: 'email', type: 'email', required: true },
    { name: 'college', type: 'string', required: true },
    { name: 'department', type: 'string', required: true },
    { name: 'mentor', type: 'string', required: false },
    { name: 'startDate', type: 'date', required: true },
    {
      name: 'status',
      type: 'enum',
      required: true,
      values: ['ACTIVE', 'COMPLETED', 'WITHDRAWN'],
      default: 'ACTIVE',
      queryable: true,
    },
  ],
};

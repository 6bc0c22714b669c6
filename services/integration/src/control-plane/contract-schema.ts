/**
 * The response schema of a contract definition (spec 2.2) in the control plane's
 * document, shared as the `Contract` component. Requests are checked by the contract
 * validator itself (`validate-definition.ts`), which names each wrong field.
 */
export const contractSchema = {
  $id: 'Contract',
  type: 'object',
  description: 'A contract definition (spec 2.2)',
  required: [
    'contractId',
    'title',
    'schemaVersion',
    'naturalKey',
    'recordTypes',
    'lifecycle',
    'fields',
  ],
  properties: {
    contractId: { type: 'string' },
    title: { type: 'string' },
    schemaVersion: { type: 'integer', minimum: 1 },
    naturalKey: {
      type: 'object',
      required: ['strategy', 'fields'],
      properties: {
        strategy: { type: 'string', enum: ['field'] },
        fields: { type: 'array', items: { type: 'string' } },
      },
    },
    recordTypes: { type: 'array', items: { type: 'string' } },
    lifecycle: {
      type: 'object',
      additionalProperties: { type: 'string', enum: ['create', 'update', 'tombstone'] },
    },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type'],
        properties: { name: { type: 'string' }, type: { type: 'string' } },
        additionalProperties: true,
      },
    },
  },
  additionalProperties: true,
} as const;

/** `{ contract }` with the timestamps of the current version. */
export const storedContractSchema = {
  type: 'object',
  required: ['contract'],
  properties: {
    contract: { $ref: 'Contract#' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

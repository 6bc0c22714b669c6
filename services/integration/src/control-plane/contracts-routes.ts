/** Control-plane routes of the contract registry: register, read, versions, dry-run check, versioned edit. */
import { errorResponses, type SqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Broker } from '../broker/broker.js';
import { findContract, listContracts, listVersions } from '../contracts/contract-store.js';
import { integrationErrors } from '../errors.js';
import { storedContractSchema } from './contract-schema.js';
import { checkEvolution, evolveContract, registerContract } from './contract-use-cases.js';

const tags = ['contracts'];
const created = {
  201: {
    description: 'Registered; `Location` names the new version',
    type: 'object',
    required: ['contract'],
    properties: { contract: { $ref: 'Contract#' } },
  },
} as const;
const versionSchema = {
  type: 'object',
  required: ['schemaVersion', 'contract'],
  properties: {
    schemaVersion: { type: 'integer' },
    createdAt: { type: 'string' },
    contract: { $ref: 'Contract#' },
  },
} as const;
const idParams = {
  type: 'object',
  properties: { contractId: { type: 'string' } },
  required: ['contractId'],
};
const definitionBody = {
  type: 'object',
  description:
    'Contract definition (spec 2.2): contractId, title, schemaVersion, naturalKey {strategy, fields}, recordTypes, lifecycle {recordType: create|update|tombstone}, fields [{name, type, required, queryable, values, default}]',
};

export function registerContractRoutes(
  app: FastifyInstance,
  deps: { db: SqlDatabase; broker: Broker },
): void {
  const { db, broker } = deps;

  app.post(
    '/contracts',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'registerContract',
        summary: 'Register a contract (provisions its topics)',
        tags,
        body: definitionBody,
        response: {
          ...created,
          ...errorResponses(integrationErrors.definitions, [
            'CONTRACT_INVALID',
            'CONTRACT_EXISTS',
            'BROKER_UNAVAILABLE',
          ]),
        },
      },
    },
    async (request, reply) => {
      const contract = await registerContract(db, broker, request.body);
      request.log.info(
        { contractId: contract.contractId, schemaVersion: contract.schemaVersion },
        'contract registered',
      );
      return reply
        .code(201)
        .header('location', `/contracts/${contract.contractId}`)
        .send({ contract });
    },
  );

  app.get(
    '/contracts',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'listContracts',
        summary: 'List contracts (current versions)',
        tags,
        response: {
          200: {
            description: 'Every contract at its current version, with its timestamps',
            type: 'object',
            required: ['contracts'],
            properties: {
              contracts: {
                type: 'array',
                items: {
                  allOf: [
                    { $ref: 'Contract#' },
                    {
                      type: 'object',
                      properties: { createdAt: { type: 'string' }, updatedAt: { type: 'string' } },
                    },
                  ],
                },
              },
            },
          },
        },
      },
    },
    async () => ({
      contracts: (await listContracts(db)).map(({ contract, createdAt, updatedAt }) => ({
        ...contract,
        createdAt,
        updatedAt,
      })),
    }),
  );

  app.get<{ Params: { contractId: string } }>(
    '/contracts/:contractId',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'getContract',
        summary: 'The current version of a contract',
        tags,
        params: idParams,
        response: {
          200: { description: 'The current version', ...storedContractSchema },
          ...errorResponses(integrationErrors.definitions, ['CONTRACT_NOT_FOUND']),
        },
      },
    },
    async (request) => {
      const stored = await findContract(db, request.params.contractId);
      if (!stored) throw integrationErrors.CONTRACT_NOT_FOUND();
      return {
        contract: stored.contract,
        createdAt: stored.createdAt,
        updatedAt: stored.updatedAt,
      };
    },
  );

  app.get<{ Params: { contractId: string } }>(
    '/contracts/:contractId/versions',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'listContractVersions',
        summary: 'Every version of a contract',
        tags,
        params: idParams,
        response: {
          200: {
            description: 'Every version, oldest first',
            type: 'object',
            required: ['versions'],
            properties: { versions: { type: 'array', items: versionSchema } },
          },
          ...errorResponses(integrationErrors.definitions, ['CONTRACT_NOT_FOUND']),
        },
      },
    },
    async (request) => {
      const versions = await listVersions(db, request.params.contractId);
      if (versions.length === 0) throw integrationErrors.CONTRACT_NOT_FOUND();
      return { versions };
    },
  );

  app.get<{ Params: { contractId: string; version: number } }>(
    '/contracts/:contractId/versions/:version',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'getContractVersion',
        summary: 'One version of a contract',
        tags,
        params: {
          type: 'object',
          properties: { contractId: { type: 'string' }, version: { type: 'integer', minimum: 1 } },
          required: ['contractId', 'version'],
        },
        response: {
          200: { description: 'The version', ...versionSchema },
          ...errorResponses(integrationErrors.definitions, [
            'CONTRACT_NOT_FOUND',
            'CONTRACT_VERSION_NOT_FOUND',
          ]),
        },
      },
    },
    async (request) => {
      const versions = await listVersions(db, request.params.contractId);
      if (versions.length === 0) throw integrationErrors.CONTRACT_NOT_FOUND();
      const version = versions.find((v) => v.schemaVersion === request.params.version);
      if (!version) throw integrationErrors.CONTRACT_VERSION_NOT_FOUND();
      return version;
    },
  );

  app.post<{ Params: { contractId: string } }>(
    '/contracts/:contractId/compatibility',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'checkContractCompatibility',
        summary:
          'Dry run: is this proposed definition a compatible next version (BACKWARD)? Nothing is written',
        tags,
        params: idParams,
        body: definitionBody,
        response: {
          200: {
            description:
              'Whether the definition would be accepted as the next version, and why not',
            type: 'object',
            required: ['contractId', 'currentVersion', 'proposedVersion', 'compatible', 'mode'],
            properties: {
              contractId: { type: 'string' },
              currentVersion: { type: 'integer' },
              proposedVersion: { type: 'integer' },
              compatible: { type: 'boolean' },
              incompatibilities: {
                type: 'array',
                items: { type: 'object', additionalProperties: true },
              },
              mode: { type: 'string', enum: ['BACKWARD'] },
            },
          },
          ...errorResponses(integrationErrors.definitions, [
            'CONTRACT_INVALID',
            'CONTRACT_NOT_FOUND',
            'CONTRACT_VERSION_CONFLICT',
          ]),
        },
      },
    },
    async (request) => {
      const check = await checkEvolution(db, request.params.contractId, request.body);
      const { next: _next, ...result } = check;
      return { ...result, mode: 'BACKWARD' };
    },
  );

  app.post<{ Params: { contractId: string } }>(
    '/contracts/:contractId/versions',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'addContractVersion',
        summary:
          'Edit a contract: a versioned, compatibility-checked update (409 with the incompatibilities when refused)',
        tags,
        params: idParams,
        body: definitionBody,
        response: {
          ...created,
          ...errorResponses(integrationErrors.definitions, [
            'CONTRACT_INVALID',
            'CONTRACT_NOT_FOUND',
            'CONTRACT_VERSION_CONFLICT',
            'CONTRACT_INCOMPATIBLE',
            'BROKER_UNAVAILABLE',
          ]),
        },
      },
    },
    async (request, reply) => {
      const contract = await evolveContract(db, broker, request.params.contractId, request.body);
      request.log.info(
        { contractId: contract.contractId, schemaVersion: contract.schemaVersion },
        'contract version added',
      );
      return reply
        .code(201)
        .header('location', `/contracts/${contract.contractId}/versions/${contract.schemaVersion}`)
        .send({ contract });
    },
  );
}

/** Control-plane routes of the contract registry: register, read, versions, dry-run check, versioned edit. */
import type { SqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Broker } from '../broker/broker.js';
import { findContract, listContracts, listVersions } from '../contracts/contract-store.js';
import { errors } from '../errors.js';
import { checkEvolution, evolveContract, registerContract } from './contract-use-cases.js';

const tags = ['contracts'];
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
        summary: 'Register a contract (provisions its topics)',
        tags,
        body: definitionBody,
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
    { config: { scope: 'read' }, schema: { summary: 'List contracts (current versions)', tags } },
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
      schema: { summary: 'The current version of a contract', tags, params: idParams },
    },
    async (request) => {
      const stored = await findContract(db, request.params.contractId);
      if (!stored) throw errors.CONTRACT_NOT_FOUND();
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
      schema: { summary: 'Every version of a contract', tags, params: idParams },
    },
    async (request) => {
      const versions = await listVersions(db, request.params.contractId);
      if (versions.length === 0) throw errors.CONTRACT_NOT_FOUND();
      return { versions };
    },
  );

  app.get<{ Params: { contractId: string; version: number } }>(
    '/contracts/:contractId/versions/:version',
    {
      config: { scope: 'read' },
      schema: {
        summary: 'One version of a contract',
        tags,
        params: {
          type: 'object',
          properties: { contractId: { type: 'string' }, version: { type: 'integer', minimum: 1 } },
          required: ['contractId', 'version'],
        },
      },
    },
    async (request) => {
      const versions = await listVersions(db, request.params.contractId);
      if (versions.length === 0) throw errors.CONTRACT_NOT_FOUND();
      const version = versions.find((v) => v.schemaVersion === request.params.version);
      if (!version) throw errors.CONTRACT_VERSION_NOT_FOUND();
      return version;
    },
  );

  app.post<{ Params: { contractId: string } }>(
    '/contracts/:contractId/compatibility',
    {
      config: { scope: 'read' },
      schema: {
        summary:
          'Dry run: is this proposed definition a compatible next version (BACKWARD)? Nothing is written',
        tags,
        params: idParams,
        body: definitionBody,
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
        summary:
          'Edit a contract: a versioned, compatibility-checked update (409 with the incompatibilities when refused)',
        tags,
        params: idParams,
        body: definitionBody,
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

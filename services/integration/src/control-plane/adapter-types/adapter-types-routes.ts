/** Adapter type registry: adapters PUT their descriptor at start and on every refresh (heartbeat). */
import { errorResponses, type SqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { integrationErrors } from '../../errors.js';
import type { ConfigSchemas } from '../config-schema.js';
import {
  findAdapterType,
  listAdapterTypes,
  typeOfConsumerGroup,
  upsertAdapterType,
  type StoredAdapterType,
} from './adapter-type-store.js';
import { validateDescriptor } from './validate-descriptor.js';

const tags = ['adapter types'];
const typeParams = { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] };
const adapterTypeSchema = {
  type: 'object',
  required: ['type', 'description', 'configSchema', 'consumerGroup', 'live'],
  properties: {
    type: { type: 'string' },
    description: { type: 'string' },
    configSchema: {
      type: 'object',
      additionalProperties: true,
      description: 'JSON Schema of an attachment config',
    },
    consumerGroup: { type: 'string' },
    adminUrl: { type: ['string', 'null'] },
    registeredAt: { type: 'string' },
    lastSeenAt: { type: 'string' },
    live: { type: 'boolean', description: 'Re-registered within the liveness window' },
  },
} as const;
const oneType = (description: string) => ({
  description,
  type: 'object',
  required: ['adapterType'],
  properties: { adapterType: adapterTypeSchema },
});

export interface AdapterTypeRouteOptions {
  db: SqlDatabase;
  /** Compiles descriptors' config schemas (a schema that does not compile is refused). */
  configSchemas: ConfigSchemas;
  /** A type is `live` when it re-registered within this many seconds. */
  livenessSeconds: number;
  /** Called after every successful registration (the interns seed attaches itself here). */
  onRegistered?: (type: StoredAdapterType) => Promise<void>;
}

export function registerAdapterTypeRoutes(
  app: FastifyInstance,
  options: AdapterTypeRouteOptions,
): void {
  const { db, livenessSeconds } = options;
  const withLiveness = (type: StoredAdapterType) => ({
    ...type,
    live: Date.now() - Date.parse(type.lastSeenAt) <= livenessSeconds * 1000,
  });

  app.put<{ Params: { type: string } }>(
    '/adapter-types/:type',
    {
      config: { scope: 'operate' },
      schema: {
        summary:
          'Register (or refresh) an adapter type: its description, config schema, consumer group and admin URL',
        operationId: 'registerAdapterType',
        tags,
        params: typeParams,
        body: {
          type: 'object',
          description: '{ type, description, configSchema, consumerGroup, adminUrl }',
        },
        response: {
          200: oneType('Refreshed (a heartbeat of a known type)'),
          201: oneType('Registered for the first time'),
          ...errorResponses(integrationErrors.definitions, [
            'ADAPTER_TYPE_INVALID',
            'CONSUMER_GROUP_TAKEN',
          ]),
        },
      },
    },
    async (request, reply) => {
      const { descriptor, violations } = validateDescriptor(
        request.params.type,
        request.body,
        options.configSchemas,
      );
      if (!descriptor) {
        const first = violations[0]!;
        throw integrationErrors.ADAPTER_TYPE_INVALID({
          detail: `adapter type descriptor is invalid: ${first.path} ${first.message}`,
          body: { errors: violations },
        });
      }
      const owner = await typeOfConsumerGroup(db, descriptor.consumerGroup);
      if (owner && owner !== descriptor.type) {
        throw integrationErrors.CONSUMER_GROUP_TAKEN({
          detail: `consumer group ${descriptor.consumerGroup} is already used by adapter type ${owner}`,
        });
      }
      const { stored, created } = await upsertAdapterType(db, descriptor);
      if (created)
        request.log.info(
          { adapterType: stored.type, consumerGroup: stored.consumerGroup },
          'adapter type registered',
        );
      await options.onRegistered?.(stored);
      return reply.code(created ? 201 : 200).send({ adapterType: withLiveness(stored) });
    },
  );

  app.get(
    '/adapter-types',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'listAdapterTypes',
        summary: 'Registered adapter types and their liveness',
        tags,
        response: {
          200: {
            description: 'Every registered type',
            type: 'object',
            required: ['adapterTypes'],
            properties: { adapterTypes: { type: 'array', items: adapterTypeSchema } },
          },
        },
      },
    },
    async () => ({
      adapterTypes: (await listAdapterTypes(db)).map(withLiveness),
    }),
  );

  app.get<{ Params: { type: string } }>(
    '/adapter-types/:type',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'getAdapterType',
        summary: 'One adapter type',
        tags,
        params: typeParams,
        response: {
          200: oneType('The type'),
          ...errorResponses(integrationErrors.definitions, ['ADAPTER_TYPE_NOT_FOUND']),
        },
      },
    },
    async (request) => {
      const type = await findAdapterType(db, request.params.type);
      if (!type) throw integrationErrors.ADAPTER_TYPE_NOT_FOUND();
      return { adapterType: withLiveness(type) };
    },
  );
}

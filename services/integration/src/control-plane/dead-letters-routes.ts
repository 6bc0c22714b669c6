/** Dead-letter read API (non-destructive: filter, group, inspect) and replay. */
import { errorResponses, type SqlDatabase } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Broker } from '../broker/broker.js';
import {
  findDeadLetter,
  GROUP_COLUMNS,
  groupDeadLetters,
  listDeadLetters,
  type GroupDimension,
} from '../dead-letters/dead-letter-store.js';
import { replayDeadLetter, replayDeadLetters } from '../dead-letters/replay.js';
import { integrationErrors } from '../errors.js';

const tags = ['dead letters'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const deadLetterSchema = {
  type: 'object',
  required: ['id', 'originalTopic', 'errorType', 'errorMessage', 'failedAdapter', 'replayed'],
  properties: {
    id: { type: 'string' },
    originalTopic: { type: 'string' },
    originalPartition: { type: 'integer' },
    originalOffset: { type: 'integer' },
    originalKey: { type: 'string' },
    contractId: { type: ['string', 'null'] },
    originalPayload: {
      description: 'The unmodified original message: JSON when it parsed, else its text',
    },
    errorType: { type: 'string' },
    errorMessage: { type: 'string' },
    failedAdapter: { type: 'string' },
    attemptCount: { type: 'integer' },
    quarantinedAt: { type: 'string' },
    traceId: { type: ['string', 'null'] },
    replayed: { type: 'boolean' },
    replayedAt: { type: ['string', 'null'] },
    deadLetterTopic: { type: 'string' },
    deadLetterPartition: { type: 'integer' },
    deadLetterOffset: { type: 'integer' },
  },
} as const;

interface Query {
  contractId?: string;
  errorType?: string;
  failedAdapter?: string;
  replayed?: boolean;
  groupBy?: string;
  limit: number;
  offset: number;
}

export function registerDeadLetterRoutes(
  app: FastifyInstance,
  deps: { db: SqlDatabase; broker: Broker },
): void {
  const { db, broker } = deps;

  app.get<{ Querystring: Query }>(
    '/dead-letters',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'listDeadLetters',
        summary:
          'Dead letters, newest first; filter by contract, error type, adapter, replayed; or group (groupBy=contractId,errorType,failedAdapter)',
        tags,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            contractId: { type: 'string' },
            errorType: { type: 'string' },
            failedAdapter: { type: 'string' },
            replayed: { type: 'boolean' },
            groupBy: {
              type: 'string',
              pattern:
                '^(contractId|errorType|failedAdapter)(,(contractId|errorType|failedAdapter))*$',
            },
            limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
            offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
          },
        },
        response: {
          200: {
            description:
              'A page (`deadLetters`, `total`, `limit`, `offset`), or with groupBy the groups (`groupBy`, `groups` with a `count` each)',
            type: 'object',
            properties: {
              deadLetters: { type: 'array', items: deadLetterSchema },
              total: { type: 'integer' },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
              groupBy: { type: 'array', items: { type: 'string' } },
              groups: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['count'],
                  properties: { count: { type: 'integer' } },
                  additionalProperties: true,
                },
              },
            },
          },
        },
      },
    },
    async (request) => {
      const { groupBy, limit, offset, ...filter } = request.query;
      if (groupBy) {
        const dimensions = [...new Set(groupBy.split(','))].filter(
          (d): d is GroupDimension => d in GROUP_COLUMNS,
        );
        return { groupBy: dimensions, groups: await groupDeadLetters(db, filter, dimensions) };
      }
      const { deadLetters, total } = await listDeadLetters(db, filter, { limit, offset });
      return { deadLetters, total, limit, offset };
    },
  );

  // Bulk replay (issue 17): the filter of the list, oldest first, bounded per request.
  app.post<{
    Body: {
      contractId?: string;
      errorType?: string;
      failedAdapter?: string;
      replayed: boolean;
      limit: number;
    };
  }>(
    '/dead-letters/replay',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'replayDeadLetters',
        summary:
          'Replay every dead letter a filter selects (oldest first, at most limit; by default only those not replayed yet); each entry is replayed as by /dead-letters/{id}/replay',
        tags,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            contractId: { type: 'string', minLength: 1, maxLength: 63 },
            errorType: {
              type: 'string',
              enum: [
                'SCHEMA_VIOLATION',
                'UNMAPPABLE_DATA',
                'RETRY_EXHAUSTED',
                'UNCLASSIFIED_FAILURE',
              ],
            },
            failedAdapter: { type: 'string', minLength: 1, maxLength: 200 },
            replayed: { type: 'boolean', default: false },
            limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
          },
        },
        response: {
          200: {
            description: 'What was replayed, what failed (and why), what was not tried',
            type: 'object',
            required: ['matched', 'replayed', 'failed', 'notAttempted'],
            properties: {
              matched: { type: 'integer' },
              replayed: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'topic'],
                  properties: { id: { type: 'string' }, topic: { type: 'string' } },
                },
              },
              failed: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'code', 'detail'],
                  properties: {
                    id: { type: 'string' },
                    code: { type: 'string' },
                    detail: { type: 'string' },
                  },
                },
              },
              notAttempted: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
    async (request) => {
      const { limit, ...filter } = request.body;
      const result = await replayDeadLetters(db, broker, filter, limit);
      request.log.info(
        {
          filter,
          matched: result.matched,
          replayed: result.replayed.length,
          failed: result.failed.length,
          notAttempted: result.notAttempted.length,
        },
        'dead letters replayed in bulk',
      );
      return result;
    },
  );

  app.get<{ Params: { id: string } }>(
    '/dead-letters/:id',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'getDeadLetter',
        summary: 'One dead letter with the original message',
        tags,
        params: idParams,
        response: {
          200: {
            description: 'The dead letter',
            type: 'object',
            required: ['deadLetter'],
            properties: { deadLetter: deadLetterSchema },
          },
          ...errorResponses(integrationErrors.definitions, ['DEAD_LETTER_NOT_FOUND']),
        },
      },
    },
    async (request) => {
      const deadLetter = UUID.test(request.params.id)
        ? await findDeadLetter(db, request.params.id)
        : undefined;
      if (!deadLetter) throw integrationErrors.DEAD_LETTER_NOT_FOUND();
      return { deadLetter };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/dead-letters/:id/replay',
    {
      config: { scope: 'operate' },
      schema: {
        operationId: 'replayDeadLetter',
        summary:
          'Republish the original envelope to the topic of its own record type and contract; the entry is kept and marked replayed',
        tags,
        params: idParams,
        response: {
          200: {
            description: 'The entry (now marked replayed) and where it was published',
            type: 'object',
            required: ['deadLetter', 'published'],
            properties: {
              deadLetter: deadLetterSchema,
              published: {
                type: 'object',
                properties: {
                  topic: { type: 'string' },
                  partition: { type: 'integer' },
                  offset: { type: 'integer' },
                },
                additionalProperties: true,
              },
            },
          },
          ...errorResponses(integrationErrors.definitions, [
            'DEAD_LETTER_NOT_FOUND',
            'DEAD_LETTER_NOT_REPLAYABLE',
            'BROKER_UNAVAILABLE',
          ]),
        },
      },
    },
    async (request) => {
      if (!UUID.test(request.params.id)) throw integrationErrors.DEAD_LETTER_NOT_FOUND();
      const { deadLetter, published } = await replayDeadLetter(db, broker, request.params.id);
      request.log.info(
        {
          deadLetterId: deadLetter.id,
          traceId: deadLetter.traceId,
          contractId: deadLetter.contractId,
          topic: published.topic,
        },
        'dead letter replayed',
      );
      return { deadLetter, published };
    },
  );
}

/** Dead-letter read API (non-destructive: filter, group, inspect) and replay. */
import type { SqlDatabase } from '@platform/core';
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
import { errors } from '../errors.js';

const tags = ['dead letters'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

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
      schema: { summary: 'One dead letter with the original message', tags, params: idParams },
    },
    async (request) => {
      const deadLetter = UUID.test(request.params.id)
        ? await findDeadLetter(db, request.params.id)
        : undefined;
      if (!deadLetter) throw errors.DEAD_LETTER_NOT_FOUND();
      return { deadLetter };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/dead-letters/:id/replay',
    {
      config: { scope: 'operate' },
      schema: {
        summary:
          'Republish the original envelope to the topic of its own record type and contract; the entry is kept and marked replayed',
        tags,
        params: idParams,
      },
    },
    async (request) => {
      if (!UUID.test(request.params.id)) throw errors.DEAD_LETTER_NOT_FOUND();
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

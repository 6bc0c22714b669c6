/** Contract record routes of the submission service: thin, parse → use case → reply. */
import { errorResponses } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { integrationErrors } from '../errors.js';
import { listActive, findActive } from './read-model.js';
import {
  createRecord,
  createRecords,
  deleteRecord,
  loadContract,
  updateRecord,
  type SubmissionDeps,
} from './record-use-cases.js';
import { pageQuery } from './page-query.js';

const tags = ['records'];
const idParams = {
  type: 'object',
  properties: { contractId: { type: 'string' } },
  required: ['contractId'],
};
const keyParams = {
  type: 'object',
  properties: { contractId: { type: 'string' }, naturalKey: { type: 'string', minLength: 1 } },
  required: ['contractId', 'naturalKey'],
};
const acceptedBody = {
  type: 'object',
  required: [
    'recordId',
    'contractId',
    'recordType',
    'naturalKey',
    'schemaVersion',
    'traceId',
    'topic',
  ],
  properties: {
    recordId: { type: 'string', format: 'uuid' },
    contractId: { type: 'string' },
    recordType: { type: 'string' },
    naturalKey: { type: 'string' },
    schemaVersion: { type: 'integer' },
    traceId: { type: 'string' },
    topic: { type: 'string' },
  },
} as const;
/** A record as the read model keeps it. */
const readModelRecord = {
  type: 'object',
  required: ['recordId', 'contractId', 'recordType', 'naturalKey', 'schemaVersion', 'payload'],
  properties: {
    recordId: { type: 'string' },
    contractId: { type: 'string' },
    recordType: { type: 'string' },
    naturalKey: { type: 'string' },
    schemaVersion: { type: 'integer' },
    occurredAt: { type: 'string' },
    traceId: { type: 'string' },
    payload: {
      type: 'object',
      additionalProperties: true,
      description: 'the payload as submitted',
    },
    revision: { type: 'integer' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;
/** What every publishing route can fail with, beside its own errors. */
const publishErrors = ['RECORD_TOO_LARGE', 'ENVELOPE_INVALID', 'BROKER_UNAVAILABLE'] as const;
const acceptedResponse = {
  202: { description: 'Accepted: validated and published', ...acceptedBody },
};

type KeyRoute = { Params: { contractId: string; naturalKey: string } };

/** Most records in one `records:batch` request; the body is bounded too (BATCH_BODY_LIMIT). */
const MAX_BATCH_RECORDS = 1000;
const BATCH_BODY_LIMIT = 4 * 1024 * 1024;
const batchBody = {
  type: 'object',
  required: ['records'],
  additionalProperties: false,
  properties: {
    records: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_RECORDS,
      description: `payload objects of the contract (at most ${MAX_BATCH_RECORDS})`,
    },
  },
};

export function registerRecordRoutes(app: FastifyInstance, deps: SubmissionDeps): void {
  app.post<{ Params: { contractId: string } }>(
    '/contracts/:contractId/records',
    {
      config: { scope: 'submit' },
      schema: {
        operationId: 'submitRecord',
        summary: 'Submit a record (create); 202 once published',
        tags,
        params: idParams,
        body: { type: 'object', description: 'payload object of the contract' },
        response: {
          ...acceptedResponse,
          ...errorResponses(integrationErrors.definitions, [
            'PAYLOAD_INVALID',
            'CONTRACT_NOT_FOUND',
            'RECORD_EXISTS',
            ...publishErrors,
          ]),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await createRecord(deps, request.params.contractId, request.body, request.traceId)),
  );

  // `::` is a literal colon in a Fastify path.
  app.post<{ Params: { contractId: string }; Body: { records: unknown[] } }>(
    '/contracts/:contractId/records::batch',
    {
      config: { scope: 'submit' },
      bodyLimit: BATCH_BODY_LIMIT,
      schema: {
        operationId: 'submitRecordBatch',
        summary: `Submit up to ${MAX_BATCH_RECORDS} records (creates) at once; one result per record, in order`,
        description:
          'Each record is validated, reserved and published on its own: 202 with what a single POST answers, or its own 400 (with errors), 409, 500 or 503. A bad record never stops its neighbours. 404 when the contract is unknown.',
        tags,
        params: idParams,
        body: batchBody,
        response: {
          200: {
            description: 'One result per record, in the order sent',
            type: 'object',
            required: ['results'],
            properties: {
              results: {
                type: 'array',
                items: {
                  type: 'object',
                  description:
                    'status 202 with what a single submission answers, or the error status with `detail` (and `errors` for a 400)',
                  required: ['status'],
                  properties: {
                    status: { type: 'integer' },
                    ...acceptedBody.properties,
                    detail: { type: 'string' },
                    code: { type: 'string' },
                  },
                  additionalProperties: true,
                },
              },
            },
          },
          ...errorResponses(integrationErrors.definitions, ['CONTRACT_NOT_FOUND']),
        },
      },
    },
    async (request) => {
      const results = await createRecords(
        deps,
        request.params.contractId,
        request.body.records,
        request.traceId,
      );
      return {
        results: results.map((result) =>
          result.ok
            ? { status: 202, ...result.accepted }
            : {
                status: result.error.statusCode,
                detail: result.error.detail,
                ...result.error.body,
              },
        ),
      };
    },
  );

  app.get<{ Params: { contractId: string }; Querystring: { limit: number; offset: number } }>(
    '/contracts/:contractId/records',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'listRecords',
        summary: "Submitted records, from the submission service's own read model",
        tags,
        params: idParams,
        querystring: pageQuery,
        response: {
          200: {
            description: 'A page of the live records, oldest first',
            type: 'object',
            required: ['records', 'total', 'limit', 'offset'],
            properties: {
              records: { type: 'array', items: readModelRecord },
              total: { type: 'integer' },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          },
          ...errorResponses(integrationErrors.definitions, ['CONTRACT_NOT_FOUND']),
        },
      },
    },
    async (request) => {
      await loadContract(deps, request.params.contractId);
      const { limit, offset } = request.query;
      return {
        ...(await listActive(deps.db, request.params.contractId, { limit, offset })),
        limit,
        offset,
      };
    },
  );

  app.get<KeyRoute>(
    '/contracts/:contractId/records/:naturalKey',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'getRecord',
        summary: 'One submitted record by natural key (read model)',
        tags,
        params: keyParams,
        response: {
          200: {
            description: 'The record',
            type: 'object',
            required: ['record'],
            properties: { record: readModelRecord },
          },
          ...errorResponses(integrationErrors.definitions, [
            'CONTRACT_NOT_FOUND',
            'RECORD_NOT_FOUND',
          ]),
        },
      },
    },
    async (request) => {
      await loadContract(deps, request.params.contractId);
      const record = await findActive(
        deps.db,
        request.params.contractId,
        request.params.naturalKey,
      );
      if (!record) throw integrationErrors.RECORD_NOT_FOUND();
      return { record };
    },
  );

  app.put<KeyRoute>(
    '/contracts/:contractId/records/:naturalKey',
    {
      config: { scope: 'submit' },
      schema: {
        operationId: 'replaceRecord',
        summary: 'Replace a record (update-style envelope, full payload)',
        tags,
        params: keyParams,
        body: { type: 'object', description: 'full payload' },
        response: {
          ...acceptedResponse,
          ...errorResponses(integrationErrors.definitions, [
            'PAYLOAD_INVALID',
            'CONTRACT_NOT_FOUND',
            'RECORD_NOT_FOUND',
            'NO_UPDATE_TYPE',
            ...publishErrors,
          ]),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await updateRecord(
            deps,
            request.params.contractId,
            request.params.naturalKey,
            request.body,
            request.traceId,
          ),
        ),
  );

  app.delete<KeyRoute>(
    '/contracts/:contractId/records/:naturalKey',
    {
      config: { scope: 'submit' },
      schema: {
        operationId: 'deleteRecord',
        summary: 'Delete a record (tombstone envelope)',
        tags,
        params: keyParams,
        response: {
          ...acceptedResponse,
          ...errorResponses(integrationErrors.definitions, [
            'CONTRACT_NOT_FOUND',
            'RECORD_NOT_FOUND',
            'NO_TOMBSTONE_TYPE',
            ...publishErrors,
          ]),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await deleteRecord(
            deps,
            request.params.contractId,
            request.params.naturalKey,
            request.traceId,
          ),
        ),
  );
}

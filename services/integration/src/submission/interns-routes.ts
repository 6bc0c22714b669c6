/**
 * Legacy intake of the first releases: `POST /interns` takes the flat intern payload and
 * `GET /interns` lists submitted interns in the flat form (`recordId`, the payload
 * fields, `createdAt`). Both go through the interns contract like any other record.
 */
import { errorResponses } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { integrationErrors } from '../errors.js';
import { INTERNS_CONTRACT_ID } from '../contracts/interns-contract.js';
import { listActive } from './read-model.js';
import { createRecord, loadContract, type SubmissionDeps } from './record-use-cases.js';
import { pageQuery } from './page-query.js';

const tags = ['interns (legacy)'];

export function registerInternRoutes(app: FastifyInstance, deps: SubmissionDeps): void {
  app.post(
    '/interns',
    {
      config: { scope: 'submit' },
      schema: {
        operationId: 'submitIntern',
        summary: 'Submit an intern (flat form); 202 with the recordId',
        tags,
        body: { type: 'object', description: 'intern payload fields' },
        response: {
          202: {
            description: 'Accepted: validated and published',
            type: 'object',
            required: ['recordId', 'internId', 'traceId'],
            properties: {
              recordId: { type: 'string', format: 'uuid' },
              internId: { type: 'string', description: 'the natural key' },
              traceId: { type: 'string' },
            },
          },
          ...errorResponses(integrationErrors.definitions, [
            'PAYLOAD_INVALID',
            'CONTRACT_NOT_FOUND',
            'RECORD_EXISTS',
            'RECORD_TOO_LARGE',
            'ENVELOPE_INVALID',
            'BROKER_UNAVAILABLE',
          ]),
        },
      },
    },
    async (request, reply) => {
      const accepted = await createRecord(deps, INTERNS_CONTRACT_ID, request.body, request.traceId);
      return reply.code(202).send({
        recordId: accepted.recordId,
        internId: accepted.naturalKey,
        traceId: accepted.traceId,
      });
    },
  );

  app.get<{ Querystring: { limit: number; offset: number } }>(
    '/interns',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'listInterns',
        summary: 'Submitted interns in the flat form (read model)',
        tags,
        querystring: pageQuery,
        response: {
          200: {
            description: 'A page of the live interns, oldest first',
            type: 'object',
            required: ['interns', 'total', 'limit', 'offset'],
            properties: {
              interns: {
                type: 'array',
                items: {
                  type: 'object',
                  description: '`recordId`, the payload fields, `createdAt`',
                  required: ['recordId'],
                  properties: { recordId: { type: 'string' }, createdAt: { type: 'string' } },
                  additionalProperties: true,
                },
              },
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
      await loadContract(deps, INTERNS_CONTRACT_ID);
      const { limit, offset } = request.query;
      const { records, total } = await listActive(deps.db, INTERNS_CONTRACT_ID, { limit, offset });
      return {
        interns: records.map((record) => ({
          recordId: record.recordId,
          ...record.payload,
          createdAt: record.createdAt,
        })),
        total,
        limit,
        offset,
      };
    },
  );
}

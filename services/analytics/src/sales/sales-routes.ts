/**
 * The five REST reads (`GET /api/v1/...`), generated from the catalog: querystring schema
 * with bounds (unknown parameters are a 400), the `{ data, meta }` wrapper, rows typed
 * per view for the OpenAPI document, and the build's validators (`ETag`, `Last-Modified`;
 * 304 for a matching `If-None-Match`). A client that prefers `text/csv` in `Accept` gets
 * the page's rows as CSV (header row, the view's columns; paging and filters as for JSON).
 */
import { ifNoneMatchHits, prefersCsv, toCsv } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Warehouse } from '../warehouse/warehouse.js';
import { READ_NAMES, READS, type ReadSpec } from './catalog.js';
import { etagOf, validatorHeaders } from './conditional.js';
import { readView, type ReadParams } from './read-view.js';

function rowSchema(spec: ReadSpec) {
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(spec.columns).map(([column, type]) => [
        column,
        { type: spec.nullable.includes(column) ? [type, 'null'] : type },
      ]),
    ),
    required: Object.keys(spec.columns),
  };
}

function pageSchema(spec: ReadSpec) {
  return {
    type: 'object',
    required: ['data', 'meta'],
    properties: {
      data: { type: 'array', items: rowSchema(spec) },
      meta: {
        type: 'object',
        properties: {
          view: { type: 'string' },
          count: { type: 'integer' },
          total: { type: 'integer' },
          limit: { type: ['integer', 'null'] },
          offset: { type: 'integer' },
          filters: {
            type: 'object',
            additionalProperties: { anyOf: [{ type: 'number' }, { type: 'string' }] },
          },
          sort: { type: 'string' },
          build_id: { type: 'string' },
          data_as_of: { type: 'string', format: 'date-time' },
        },
      },
    },
  };
}

const errorSchema = { $ref: 'Error#' };

export function registerSalesRoutes(app: FastifyInstance, warehouse: Warehouse): void {
  for (const name of READ_NAMES) {
    const spec: ReadSpec = READS[name];
    app.get(
      spec.path,
      {
        schema: {
          operationId: spec.tool.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()),
          summary: spec.summary,
          description: `${spec.description} Reads raw_data.gold.${spec.view}; MCP tool \`${spec.tool}\`.`,
          tags: ['sales'],
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(
              Object.entries(spec.params).map(([param, p]) => [param, { ...p }]),
            ),
          },
          headers: {
            type: 'object',
            properties: {
              accept: {
                type: 'string',
                description: '`text/csv` ranked above JSON gives the rows as CSV',
              },
              'if-none-match': {
                type: 'string',
                description: 'The ETag of an earlier answer: 304 while the build is the same',
              },
            },
          },
          response: {
            200: {
              description: 'A page of rows (JSON), or the rows as CSV when Accept prefers text/csv',
              content: {
                'application/json': { schema: pageSchema(spec) },
                'text/csv': { schema: { type: 'string' } },
              },
            },
            304: {
              type: 'null',
              description: 'Not modified since the build named by If-None-Match',
            },
            400: errorSchema,
            503: errorSchema,
          },
        },
        config: { scope: 'read' },
      },

      async (request, reply) => {
        const representation = prefersCsv(request.headers.accept) ? 'csv' : 'json';
        const ifNoneMatch = request.headers['if-none-match'];
        if (ifNoneMatch) {
          const build = await warehouse.currentBuild();
          if (ifNoneMatchHits(ifNoneMatch, etagOf(build, representation)))
            return reply.code(304).headers(validatorHeaders(build, representation)).send();
        }
        // The whole answer is what the cache keeps per URL and representation: its bytes
        // (UTF-8, so a hit writes them without encoding or measuring a string) and every
        // header, the build's validators included, so a repeated read is a lookup and a send.
        const answer = await warehouse.remember(`${representation} ${request.url}`, async () => {
          const page = await readView(warehouse, name, request.query as ReadParams);
          const build = { id: page.meta.build_id, builtAt: page.meta.data_as_of };
          const csv = representation === 'csv';
          return {
            headers: {
              ...validatorHeaders(build, representation),
              'content-type': csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
              ...(csv ? { 'x-total-count': String(page.meta.total) } : {}),
            },
            body: Buffer.from(
              csv ? toCsv(Object.keys(spec.columns), page.data) : JSON.stringify(page),
            ),
          };
        });
        return reply.headers(answer.headers).send(answer.body);
      },
    );
  }
}

/**
 * The five REST reads (`GET /api/v1/...`), generated from the catalog: querystring schema
 * with bounds (unknown parameters are a 400), the `{ data, meta }` wrapper, rows typed
 * per view for the OpenAPI document, and the build's validators (`ETag`, `Last-Modified`;
 * 304 for a matching `If-None-Match`).
 */
import type { FastifyInstance } from 'fastify';
import type { Warehouse } from '../warehouse/warehouse.js';
import { READ_NAMES, READS, type ReadSpec } from './catalog.js';
import { ifNoneMatchHits, etagOf, validatorHeaders } from './conditional.js';
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

const errorSchema = {
  type: 'object',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
};

export function registerSalesRoutes(app: FastifyInstance, warehouse: Warehouse): void {
  for (const name of READ_NAMES) {
    const spec: ReadSpec = READS[name];
    app.get(
      spec.path,
      {
        schema: {
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
          response: {
            200: {
              type: 'object',
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
                    filters: { type: 'object', additionalProperties: { type: 'number' } },
                    build_id: { type: 'string' },
                    data_as_of: { type: 'string', format: 'date-time' },
                  },
                },
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
        const representation = 'json';
        const ifNoneMatch = request.headers['if-none-match'];
        if (ifNoneMatch) {
          const build = await warehouse.currentBuild();
          if (ifNoneMatchHits(ifNoneMatch, etagOf(build, representation)))
            return reply.code(304).headers(validatorHeaders(build, representation)).send();
        }
        const page = await readView(warehouse, name, request.query as ReadParams);
        const build = { id: page.meta.build_id, builtAt: page.meta.data_as_of };
        reply.headers(validatorHeaders(build, representation));
        return page;
      },
    );
  }
}

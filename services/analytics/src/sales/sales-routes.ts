/**
 * The five REST reads (`GET /api/v1/...`), generated from the catalog: querystring schema
 * with bounds (unknown parameters are a 400), the `{ data, meta }` wrapper, rows typed
 * per view for the OpenAPI document, and the build's validators (`ETag`, `Last-Modified`;
 * 304 for a matching `If-None-Match`). A client that prefers `text/csv` in `Accept` gets
 * the page's rows as CSV (header row, the view's columns; paging and filters as for JSON).
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
        // The whole answer, serialized, is what the cache keeps per URL and representation:
        // a repeated read is a lookup and a send (the build's validators come with it).
        const answer = await warehouse.remember(`${representation} ${request.url}`, async () => {
          const page = await readView(warehouse, name, request.query as ReadParams);
          return {
            build: { id: page.meta.build_id, builtAt: page.meta.data_as_of },
            total: page.meta.total,
            body:
              representation === 'csv'
                ? toCsv(Object.keys(spec.columns), page.data)
                : JSON.stringify(page),
          };
        });
        reply.headers(validatorHeaders(answer.build, representation));
        if (representation === 'csv')
          return reply
            .type('text/csv; charset=utf-8')
            .header('x-total-count', String(answer.total))
            .send(answer.body);
        return reply.type('application/json; charset=utf-8').send(answer.body);
      },
    );
  }
}

/** Whether `Accept` ranks `text/csv` above JSON (absent or `*\/*` means JSON). */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const quality = (type: string) => {
    let best = -1;
    for (const part of accept.split(',')) {
      const [media, ...options] = part.trim().toLowerCase().split(';');
      if (media !== type) continue;
      const q = options.map((o) => o.trim()).find((o) => o.startsWith('q='));
      best = Math.max(best, q ? Number(q.slice(2)) || 0 : 1);
    }
    return best;
  };
  const csv = quality('text/csv');
  return csv > 0 && csv > quality('application/json');
}

/**
 * RFC 4180 CSV: a header row, then one line per row; a cell with a comma, quote or line
 * break is quoted. A text cell that starts with `=`, `+`, `-` or `@` gets a leading `'`,
 * so a spreadsheet shows it rather than running it as a formula (numbers are written as
 * numbers, negative ones included).
 */
export function toCsv(columns: string[], rows: Record<string, unknown>[]): string {
  const cell = (value: unknown): string => {
    if (value === null || value === undefined) return '';
    let text = String(value);
    if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = [columns.map(cell).join(',')];
  for (const row of rows) lines.push(columns.map((column) => cell(row[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

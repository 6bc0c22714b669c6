/**
 * The MCP server: the five view tools of the catalog and `run_sql`, a read-only SQL tool
 * for ad-hoc questions. Tool results carry the JSON both as text and as
 * `structuredContent`; a failed call is an `isError` result with the client-facing detail
 * (never internals).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { isAppError, type Logger } from '@platform/core';
import { analyticsErrors } from '../errors.js';
import { z } from 'zod';
import * as zMini from 'zod/mini';
import {
  READ_NAMES,
  READS,
  type ColumnType,
  type ParamSpec,
  type ReadSpec,
} from '../sales/catalog.js';
import { readView, type ReadParams } from '../sales/read-view.js';
import { MAX_SQL_LENGTH, runReadOnlySql, type SqlGate } from '../sql/read-only-sql.js';
import type { Warehouse } from '../warehouse/warehouse.js';

export interface McpDependencies {
  warehouse: Warehouse;
  logger?: Logger;
  /** Row cap of `run_sql`. @defaultValue 500 */
  sqlMaxRows?: number;
  /** Time limit of `run_sql`. @defaultValue 5000 */
  sqlTimeoutMs?: number;
  /** Most bytes of rows in one `run_sql` answer. @defaultValue 1 MiB */
  sqlMaxBytes?: number;
  /** How many `run_sql` queries may run at once (shared by every MCP session and the agent), in all and per client. */
  sqlGate: SqlGate;
  /** Who calls, for the per-client bounds of `sqlGate` (`key:NAME` or `address:IP`); unset: the agent. */
  sqlClient?: string | undefined;
  /** Told of every tool call and whether it failed (metrics). */
  onToolCall?: (tool: string, isError: boolean) => void;
  /**
   * Set when this caller may not use `run_sql` (`SQL_TOOL_SCOPE`): the tool stays listed
   * (one tool list for everyone) and answers this text as an error.
   */
  sqlRefusal?: string | undefined;
  /**
   * For a server shared by many callers (stateless `/mcp`): the caller of a request, by
   * its id, whose `sqlRefusal` and `sqlClient` apply instead of the ones above.
   */
  callerOf?: (requestId: RequestId) => SqlCaller | undefined;
}

/** What decides a caller's `run_sql` rights and bounds (see `McpDependencies`). */
export interface SqlCaller {
  sqlRefusal?: string | undefined;
  sqlClient?: string | undefined;
}

export const SQL_TOOL = 'run_sql';
const SERVER_INFO = { name: 'sales-analytics', version: '1.0.0' };

/**
 * The JSON Schema validator every server shares. The SDK builds one (a new Ajv with its
 * formats) per server otherwise: measured, most of the CPU of a stateless `/mcp` request.
 * It only checks what a client sends back to an elicitation (none here); it compiles
 * per schema, so sharing it changes nothing but the cost.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

export function createMcpServer(deps: McpDependencies): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Sales analytics of a Brazilian e-commerce marketplace (amounts in BRL). Use the view tools first; run_sql only for questions they cannot answer.',
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
  });
  const run = async (
    tool: string,
    work: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> => {
    let outcome: CallToolResult;
    try {
      outcome = await work();
    } catch (error) {
      let text = 'Internal error';
      if (isAppError(error)) text = error.detail;
      else deps.logger?.error({ err: error }, 'MCP tool failed');
      outcome = { content: [{ type: 'text', text }], isError: true };
    }
    deps.onToolCall?.(tool, outcome.isError === true);
    return outcome;
  };

  for (const { name, tool, config } of VIEW_TOOLS) {
    // The whole result, serialized text included, is kept per tool and arguments under
    // the build serving (as REST keeps its answer per URL), so a repeated call is a lookup.
    server.registerTool(tool, config, async (args: ReadParams) =>
      run(tool, () =>
        deps.warehouse.remember(`mcp ${tool} ${canonicalArguments(args)}`, async () =>
          successOf(await readView(deps.warehouse, name, args)),
        ),
      ),
    );
  }

  const maxRows = deps.sqlMaxRows ?? 500;
  server.registerTool(
    SQL_TOOL,
    {
      title: 'Read-only SQL',
      description:
        `Runs exactly one read-only DuckDB SELECT on the gold tables of the warehouse (at most ${maxRows} rows; no other schemas, system tables or file functions). Tables: raw_data.gold.fact_sales ` +
        '(order_id, order_item_id, customer_sk, product_sk, order_date_sk, seller_id, order_status, order_purchase_timestamp, sales_amount, freight_value), ' +
        'raw_data.gold.dim_date (date_sk, full_date, calendar_year, calendar_quarter, calendar_month, month_name, day_of_month, day_of_week, day_name, is_weekend), ' +
        'raw_data.gold.dim_product (product_sk, product_id, product_category_name, product_category_name_original, product_weight_g, …), ' +
        'raw_data.gold.dim_customer (customer_sk, customer_unique_id, customer_zip_code_prefix, customer_city, customer_state), and the views ' +
        'raw_data.gold.vw_executive_kpis, vw_monthly_sales, vw_yoy_growth, vw_customer_ltv_ranking, vw_category_freight_burden. ' +
        'Use only when the other tools cannot answer.',
      inputSchema: SQL_INPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ sql }: { sql: string }, extra) =>
      run(SQL_TOOL, async () => {
        const caller: SqlCaller = deps.callerOf
          ? (deps.callerOf(extra.requestId) ?? { sqlRefusal: 'Unknown caller' })
          : deps;
        if (caller.sqlRefusal)
          throw analyticsErrors.SQL_TOOL_FORBIDDEN({ detail: caller.sqlRefusal });
        const output = await deps.sqlGate.run(
          () =>
            runReadOnlySql(deps.warehouse, sql, {
              maxRows,
              maxBytes: deps.sqlMaxBytes,
              timeoutMs: deps.sqlTimeoutMs ?? 5000,
            }),
          caller.sqlClient,
        );
        return successOf({
          columns: output.columns,
          rows: output.rows,
          row_count: output.rows.length,
          truncated: output.truncated,
          max_rows: maxRows,
        });
      }),
  );
  return server;
}

/** A tool's answer: its JSON as text content and as `structuredContent`. */
function successOf(result: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result as Record<string, unknown>,
  };
}

/** The view tools' names: their results depend on their arguments and the build alone. */
const VIEW_TOOL_NAMES: ReadonlySet<string> = new Set(READ_NAMES.map((name) => READS[name].tool));

/** Longest arguments (as JSON) a kept answer is keyed by; longer calls are answered afresh. */
const MAX_KEPT_ARGUMENTS = 1000;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The key under which the answer of `message` may be kept (`KeptAnswers` of the
 * stateless exchange): a `tools/call` of a view tool, written as a plain JSON-RPC request
 * (`jsonrpc`, an integer or string `id`, `method`, `params` with `name` and an
 * `arguments` object only: no `_meta`, no task), which the SDK accepts as it is. The key is
 * the tool and its arguments as sent, so equal bytes share an answer; any other message
 * (other methods, `run_sql`, whose answer depends on the caller and the clock) gets none.
 */
export function viewToolCallKey(message: unknown): { key: string; tool: string } | undefined {
  if (!isPlainObject(message)) return undefined;
  const { jsonrpc, id, method, params, ...rest } = message;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || Object.keys(rest).length > 0) return;
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !isPlainObject(params)) return;
  const { name, arguments: args, ...other } = params;
  if (Object.keys(other).length > 0 || typeof name !== 'string' || !VIEW_TOOL_NAMES.has(name))
    return;
  if (args !== undefined && !isPlainObject(args)) return;
  const argumentsJson = JSON.stringify(args ?? {});
  if (argumentsJson.length > MAX_KEPT_ARGUMENTS) return;
  return { key: `mcp answer ${name} ${argumentsJson}`, tool: name };
}

/** The validated arguments as a cache key: given ones only, in name order. */
function canonicalArguments(args: ReadParams): string {
  return JSON.stringify(
    Object.entries(args)
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/**
 * The view tools' settings and zod schemas, built once: `/mcp` creates a server per
 * request, and building the schemas each time cost most of its 2.5 ms. The input and
 * output schemas are whole objects (`zMini.object`, as the SDK would make of a shape)
 * rather than shapes: the SDK wraps a shape in a new object at every registration and
 * every call, and zod compiles its fast parser once per object.
 */
const VIEW_TOOLS = READ_NAMES.map((name) => {
  const spec: ReadSpec = READS[name];
  return {
    name,
    tool: spec.tool,
    config: {
      title: spec.summary,
      description: spec.description,
      inputSchema: zMini.object(
        Object.fromEntries(Object.entries(spec.params).map(([param, p]) => [param, zodParam(p)])),
      ),
      outputSchema: pageSchema(spec),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  };
});

const SQL_INPUT = zMini.object({
  sql: z.string().min(1).max(MAX_SQL_LENGTH).describe('One SELECT statement in DuckDB SQL.'),
});

/**
 * The `{ data, meta }` page a view tool returns, so clients know its rows' shape.
 * A nullable column is written `anyOf: [{type, description}, {type: "null"}]`, never
 * `type: [x, "null"]` (issue 22): single-type dialects (and the MCP Inspector's strict
 * check) reject type arrays, and zod collapses a union into one unless its non-null
 * member carries a keyword besides `type` — hence the description.
 */
function pageSchema(spec: ReadSpec) {
  const column = (name: string, type: ColumnType) => {
    const base =
      type === 'string' ? z.string() : type === 'integer' ? z.number().int() : z.number();
    return spec.nullable.includes(name)
      ? base.describe(`${name}, or null where this row has no value for it`).nullable()
      : base;
  };
  return zMini.object({
    data: z.array(
      z.object(
        Object.fromEntries(
          Object.entries(spec.columns).map(([name, type]) => [name, column(name, type)]),
        ),
      ),
    ),
    meta: z.object({
      view: z.string(),
      count: z.number().int(),
      total: z.number().int(),
      limit: z.number().int().nullable(),
      offset: z.number().int(),
      // Described members, so zod writes anyOf rather than `type: ["number","string"]`.
      filters: z.record(
        z.string(),
        z.union([
          z.number().describe('A numeric filter value'),
          z.string().describe('A text filter value'),
        ]),
      ),
      sort: z.string().optional(),
      build_id: z.string(),
      data_as_of: z.string(),
    }),
  });
}

function zodParam(p: ParamSpec) {
  if (p.type === 'string') {
    const text = p.enum
      ? z.enum(p.enum as [string, ...string[]])
      : z.string().regex(new RegExp(p.pattern ?? '.*'));
    return text.optional().describe(p.description);
  }
  const base = p.type === 'integer' ? z.number().int() : z.number();
  return base.min(p.minimum).max(p.maximum).optional().describe(p.description);
}

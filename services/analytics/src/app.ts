/**
 * The analytics HTTP app: health (the warehouse), metrics, OpenAPI, the five REST reads,
 * MCP (Streamable HTTP and legacy SSE), the agent API and the chat page. Dependencies are
 * passed in, so tests build it around their own warehouse and LLM stand-ins.
 */
import {
  createHttpApp,
  localServer,
  type AccessPolicy,
  type ClientAddressResolver,
  type HealthCheck,
  type Logger,
  type RateLimiter,
  type RouteScope,
  registerClientModule,
} from '@platform/core';
import type { FastifyInstance } from 'fastify';
import { Counter } from 'prom-client';
import { registerAgentRoutes } from './agent/agent-routes.js';
import { registerDashboardRoutes } from './dashboard/dashboard-routes.js';
import type { LlmProvider } from './agent/llm-types.js';
import type { AgentLimits } from './agent/run-agent.js';
import { createMcpToolbox } from './agent/mcp-toolbox.js';
import { registerMcpRoutes } from './mcp/mcp-routes.js';
import { warmServingData } from './sales/warm-serving.js';
import { registerSalesRoutes } from './sales/sales-routes.js';
import { registerHostGuard, type HostGuardOptions } from './http/host-guard.js';
import { requestLogger } from './startup/warm-request-path.js';
import { createSqlGate } from './sql/read-only-sql.js';
import type { Warehouse } from './warehouse/warehouse.js';

export interface AppOptions {
  warehouse: Warehouse;
  logger: Logger;
  /** Row cap of the SQL tool. @defaultValue 500 */
  sqlMaxRows?: number;
  /** Time limit of the SQL tool. @defaultValue 5000 */
  sqlTimeoutMs?: number;
  /** Most bytes of rows in one SQL tool answer. @defaultValue 1 MiB */
  sqlMaxBytes?: number;
  /** SQL tool queries running at once in the process. @defaultValue 2 */
  sqlMaxConcurrent?: number;
  /** SQL tool queries running at once for one client (API key, else address). @defaultValue 1 */
  sqlMaxConcurrentPerClient?: number;
  /** SQL tool queries per client and window; undefined: no rate bound. */
  sqlRateLimit?: RateLimiter | undefined;
  /** The caller's address, for the per-client bounds. @defaultValue the socket's */
  clientAddress?: ClientAddressResolver | undefined;
  /** The agent's LLM; undefined: the offline planner answers. */
  llm?: LlmProvider;
  /** The agent loop's bounds (model turns, tool calls per turn, deadline). */
  agent?: AgentLimits;
  /** Per-client limit of chat requests; undefined: none. */
  agentRateLimit?: { limiter: RateLimiter; clientAddress: ClientAddressResolver };
  /** Hosts and browser origins answered (DNS-rebinding guard). @defaultValue loopback names */
  hostGuard?: HostGuardOptions;
  /** API keys and scopes (`accessPolicyFromEnv`). @defaultValue local mode */
  access?: AccessPolicy;
  /** What the chat API needs (`AGENT_SCOPE`). @defaultValue operate */
  agentScope?: RouteScope;
  /** What `run_sql` needs (`SQL_TOOL_SCOPE`). @defaultValue operate */
  sqlScope?: RouteScope;
  /** More dependencies for `/health` (e.g. the counter store). */
  health?: Record<string, HealthCheck>;
}

export async function buildAnalyticsApp(options: AppOptions): Promise<FastifyInstance> {
  const { warehouse, logger } = options;
  const app = await createHttpApp({
    service: 'analytics',
    logger,
    ...(options.access ? { access: options.access } : {}),
    health: { warehouse: () => warehouse.ping(), ...options.health },
    // One line per request at info, when answered (README, Benchmark: a cached read costs
    // the server 0.2–0.4 ms of CPU; Fastify's two lines cost a little more than one).
    requestLog: 'completed',
    openapi: {
      title: 'Sales analytics',
      version: '1.0.0',
      description:
        'Five semantic views of the sales star schema over REST and MCP, and a chat agent.',
      // PORT's default (config.ts).
      servers: [localServer(8000, 'The analytics service')],
      tags: [
        { name: 'sales', description: 'The five semantic views of the sales star schema.' },
        { name: 'mcp', description: 'The same views as MCP tools (Streamable HTTP and SSE).' },
        { name: 'agent', description: 'The chat agent over the MCP tools, and its page.' },
        { name: 'pages', description: 'The dashboard page.' },
      ],
    },
  });
  // The start's warm-up requests (`warmRequestPath`) log to a logger of their own.
  app.setChildLoggerFactory(requestLogger);
  registerHostGuard(app, options.hostGuard);
  registerSalesRoutes(app, warehouse);
  registerDashboardRoutes(app);
  // The dashboard and chat pages call the API through it.
  registerClientModule(app, 'pages');
  const toolCalls = new Counter({
    name: 'analytics_tool_calls_total',
    help: 'MCP tool calls (public MCP endpoints and the agent), by tool and outcome.',
    labelNames: ['tool', 'outcome'],
    registers: [app.metricsRegistry],
  });
  const mcp = {
    warehouse,
    logger,
    sqlMaxRows: options.sqlMaxRows ?? 500,
    sqlTimeoutMs: options.sqlTimeoutMs ?? 5000,
    sqlMaxBytes: options.sqlMaxBytes,
    sqlGate: createSqlGate({
      maxConcurrent: options.sqlMaxConcurrent ?? 2,
      maxPerClient: options.sqlMaxConcurrentPerClient ?? 1,
      limiter: options.sqlRateLimit,
    }),
    onToolCall: (tool: string, isError: boolean) =>
      toolCalls.inc({ tool, outcome: isError ? 'error' : 'ok' }),
  };
  const agentScope = options.agentScope ?? 'operate';
  const sqlScope = options.sqlScope ?? 'operate';
  await registerMcpRoutes(app, { ...mcp, sqlScope, clientAddress: options.clientAddress });
  // The agent runs SQL only when everyone who may chat may also run SQL directly.
  const agentMayRunSql = sqlScope === 'open' || sqlScope === agentScope;
  const toolbox = await createMcpToolbox({
    ...mcp,
    sqlRefusal: agentMayRunSql
      ? undefined
      : `run_sql is not available to the chat agent (it needs the "${sqlScope}" scope)`,
  });
  app.addHook('onClose', async () => toolbox.close());
  registerAgentRoutes(app, {
    toolbox,
    provider: options.llm,
    limits: options.agent,
    rateLimit: options.agentRateLimit,
    scope: agentScope,
  });
  // Each new build's serving data is loaded before the build is switched in, and the
  // build serving now before the first request: the first reads would otherwise load it
  // while others wait. (Opening the build here runs the first; the second call finds it
  // loaded, unless the warehouse was opened before this app.)
  const stopWarming = warehouse.beforeServing((build) => warmServingData(build, logger));
  app.addHook('onClose', async () => {
    stopWarming();
  });
  await warmServingData(warehouse, logger);
  return app;
}

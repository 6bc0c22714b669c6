/**
 * Starts the analytics service: listens at once (health is 503 until the warehouse
 * exists), builds the warehouse on first start, and shuts down cleanly on SIGTERM/SIGINT.
 */
import {
  accessPolicyFromEnv,
  guardedFetch,
  outboundGuardFromEnv,
  createClientAddressResolver,
  createLogger,
  createRateLimiter,
  handleShutdown,
  listen,
  listenHost,
  loadConfigOrExit,
  openCounterStore,
} from '@platform/core';
import { createLlmProvider } from './agent/providers/create-llm-provider.js';
import { buildAnalyticsApp } from './app.js';
import { analyticsEnvSchema } from './config.js';
import { ensureWarehouse } from './startup/ensure-warehouse.js';
import { startFirstBuild, type FirstBuild } from './startup/first-build.js';
import { warmRequestPath } from './startup/warm-request-path.js';
import { warehousePath } from './warehouse/paths.js';
import { createWarehouse } from './warehouse/warehouse.js';

const env = loadConfigOrExit(analyticsEnvSchema);
const logger = createLogger({ service: 'analytics', level: env.LOG_LEVEL });
let firstBuild: FirstBuild | undefined;
const warehouse = createWarehouse({
  whyNotBuilt: () => firstBuild?.whyNotBuilt(),
  file: warehousePath(env.DATA_DIR),
  threads: env.ANALYTICS_DUCKDB_THREADS,
  memoryLimit: env.ANALYTICS_DUCKDB_MEMORY_LIMIT,
  spillLimit: env.ANALYTICS_DUCKDB_SPILL_LIMIT,
  timeoutMs: env.ANALYTICS_QUERY_TIMEOUT_MS,
  cacheEntries: env.ANALYTICS_QUERY_CACHE_ENTRIES,
});
const counters = openCounterStore(env, 'analytics');
const clientAddress = createClientAddressResolver({ trustedProxies: env.TRUSTED_PROXIES, logger });
const agentRateLimit =
  env.AGENT_RATE_LIMIT > 0
    ? {
        limiter: createRateLimiter(counters, {
          limit: env.AGENT_RATE_LIMIT,
          windowSeconds: env.AGENT_RATE_WINDOW_SECONDS,
          name: 'agent-chat',
        }),
        clientAddress,
      }
    : undefined;
const app = await buildAnalyticsApp({
  warehouse,
  logger,
  access: accessPolicyFromEnv(env),
  agentScope: env.AGENT_SCOPE,
  sqlScope: env.SQL_TOOL_SCOPE,
  sqlMaxRows: env.ANALYTICS_SQL_MAX_ROWS,
  sqlTimeoutMs: env.ANALYTICS_SQL_TIMEOUT_MS,
  sqlMaxBytes: env.ANALYTICS_SQL_MAX_BYTES,
  hostGuard: { allowedHosts: env.ALLOWED_HOSTS, allowedOrigins: env.ALLOWED_ORIGINS },
  sqlMaxConcurrent: env.ANALYTICS_SQL_MAX_CONCURRENT,
  sqlMaxConcurrentPerClient: env.ANALYTICS_SQL_MAX_CONCURRENT_PER_CLIENT,
  sqlRateLimit:
    env.ANALYTICS_SQL_RATE_LIMIT > 0
      ? createRateLimiter(counters, {
          limit: env.ANALYTICS_SQL_RATE_LIMIT,
          windowSeconds: env.ANALYTICS_SQL_RATE_WINDOW_SECONDS,
          name: 'analytics-sql',
        })
      : undefined,
  clientAddress,
  llm: createLlmProvider(env.LLM_PROVIDER, {
    baseUrl: env.LLM_BASE_URL,
    apiKey: env.LLM_API_KEY,
    model: env.LLM_MODEL,
    timeoutMs: env.LLM_TIMEOUT_MS,
    // LLM_BASE_URL may point anywhere: requested through the outbound guard.
    fetch: guardedFetch(outboundGuardFromEnv(env)),
    maxTokens: env.LLM_MAX_TOKENS,
  }),
  agent: {
    maxSteps: env.AGENT_MAX_STEPS,
    maxToolCallsPerTurn: env.AGENT_MAX_TOOL_CALLS,
    deadlineMs: env.AGENT_DEADLINE_MS,
  },
  agentRateLimit,
  health: { counters: async () => counters.ping().then(() => counters.driver) },
});
logger.info(
  env.LLM_PROVIDER ? { provider: env.LLM_PROVIDER } : {},
  env.LLM_PROVIDER
    ? 'agent uses an LLM'
    : 'no LLM_PROVIDER: the chat answers through the offline planner',
);
// Before the port opens: the first users are answered by compiled code (README, Benchmark).
const warmUp = await warmRequestPath(app, { requests: env.ANALYTICS_WARM_UP_REQUESTS, logger });
logger.info(warmUp, warmUp.warmed ? 'request path warmed' : 'request path not warmed');
const url = await listen(app, { port: env.PORT, host: listenHost(env) });
logger.info(
  { url },
  `analytics listening on ${url} (chat at ${url}/chat, MCP at ${url}/mcp and ${url}/sse)`,
);
if (env.ANALYTICS_BUILD_ON_START)
  firstBuild = startFirstBuild(
    () =>
      ensureWarehouse({
        dataDir: env.DATA_DIR,
        logger,
        sourceDir: env.ANALYTICS_SOURCE_DIR,
        orders: env.ANALYTICS_SEED_ORDERS,
        seed: env.ANALYTICS_SEED,
      }),
    { retrySeconds: env.ANALYTICS_BUILD_RETRY_SECONDS, logger },
  );
handleShutdown({
  logger,
  closers: [
    async () => firstBuild?.stop(),
    () => app.close(),
    () => warehouse.close(),
    () => counters.close(),
  ],
});

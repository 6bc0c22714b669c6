/** The analytics service's environment: core's variables plus its own, validated at start-up. */
import {
  booleanVar,
  coreEnvSchema,
  listVar,
  nonNegativeIntVar,
  portVar,
  positiveIntVar,
  routeScopeVar,
  urlVar,
} from '@platform/core';
import { z } from 'zod';

/** A DuckDB size such as `512MB` or `1.5GiB`. */
const byteSizeVar = (fallback: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, {
      message: 'expected a size such as 512MB or 2GB',
    })
    .default(fallback);

export const analyticsEnvSchema = coreEnvSchema.extend({
  /** REST, MCP (`/mcp`, `/sse`) and the chat page. @defaultValue 8000 */
  PORT: portVar(8000),
  /** Build the warehouse on start when none exists. @defaultValue true */
  ANALYTICS_BUILD_ON_START: booleanVar(true),
  /** Seconds between attempts of a first build that failed (a full disk, …). @defaultValue 10 */
  ANALYTICS_BUILD_RETRY_SECONDS: positiveIntVar(10),
  /** Olist CSV folder for the first build; unset: a synthetic data set is generated. */
  ANALYTICS_SOURCE_DIR: z.string().optional(),
  /** Orders in the generated data set. @defaultValue 20000 */
  ANALYTICS_SEED_ORDERS: positiveIntVar(20_000),
  /** Seed of the generated data set. @defaultValue 42 */
  ANALYTICS_SEED: positiveIntVar(42),
  /** DuckDB threads for queries. @defaultValue 2 */
  ANALYTICS_DUCKDB_THREADS: positiveIntVar(2),
  /**
   * DuckDB memory for queries, shared by the ones running at once (the SQL tool runs at
   * most ANALYTICS_SQL_MAX_CONCURRENT of them). @defaultValue 1GB
   */
  ANALYTICS_DUCKDB_MEMORY_LIMIT: byteSizeVar('1GB'),
  /** Most disk a query may spill to (DuckDB's temp directory) past that memory. @defaultValue 1GB */
  ANALYTICS_DUCKDB_SPILL_LIMIT: byteSizeVar('1GB'),
  /** Time limit of one view query. @defaultValue 10000 */
  ANALYTICS_QUERY_TIMEOUT_MS: positiveIntVar(10_000),
  /** Query results cached per warehouse build; 0 turns the cache off. @defaultValue 256 */
  ANALYTICS_QUERY_CACHE_ENTRIES: nonNegativeIntVar(256),
  /** Requests the service sends itself at start, before its port opens (`warm-request-path.ts`); 0: none. @defaultValue 2000 */
  ANALYTICS_WARM_UP_REQUESTS: nonNegativeIntVar(2000),
  /** Row cap of the read-only SQL tool. @defaultValue 500 */
  ANALYTICS_SQL_MAX_ROWS: positiveIntVar(500),
  /** Most bytes of rows (as JSON) in one SQL tool answer. @defaultValue 1048576 */
  ANALYTICS_SQL_MAX_BYTES: positiveIntVar(1 << 20),
  /** SQL tool queries running at once; one more is refused (503). @defaultValue 2 */
  ANALYTICS_SQL_MAX_CONCURRENT: positiveIntVar(2),
  /** SQL tool queries running at once for one client (API key, else address); one more is refused (503). @defaultValue 1 */
  ANALYTICS_SQL_MAX_CONCURRENT_PER_CLIENT: positiveIntVar(1),
  /** SQL tool queries per client and window; 0 turns the bound off. @defaultValue 60 */
  ANALYTICS_SQL_RATE_LIMIT: nonNegativeIntVar(60),
  /** Window of that bound, in seconds. @defaultValue 60 */
  ANALYTICS_SQL_RATE_WINDOW_SECONDS: positiveIntVar(60),
  /** Time limit of one read-only SQL tool query. @defaultValue 5000 */
  ANALYTICS_SQL_TIMEOUT_MS: positiveIntVar(5_000),
  /**
   * Host names the service answers (DNS-rebinding guard), comma-separated; `*` for any.
   * @defaultValue localhost,127.0.0.1,::1
   */
  ALLOWED_HOSTS: listVar().optional(),
  /** Browser origins allowed to call it, comma-separated; unset: loopback origins. */
  ALLOWED_ORIGINS: listVar().optional(),
  /** LLM API for the agent; unset: the offline planner answers. */
  LLM_PROVIDER: z
    .enum(['openai', 'gemini', 'anthropic'], { message: 'expected openai, gemini or anthropic' })
    .optional(),
  /** API base URL; unset: the provider's public endpoint. */
  LLM_BASE_URL: urlVar(['http', 'https']).optional(),
  LLM_API_KEY: z.string().optional(),
  /** Model name; unset: a default per provider. */
  LLM_MODEL: z.string().optional(),
  /** Time limit of one LLM call. @defaultValue 30000 */
  LLM_TIMEOUT_MS: positiveIntVar(30_000),
  /** Chat requests allowed per client address and window; 0 turns the limit off. @defaultValue 30 */
  AGENT_RATE_LIMIT: nonNegativeIntVar(30),
  /** Window of the chat rate limit, in seconds. @defaultValue 60 */
  AGENT_RATE_WINDOW_SECONDS: positiveIntVar(60),
  /** What the chat agent (`POST /api/v1/agent/chat`) needs; `open` for a public chat. @defaultValue operate */
  AGENT_SCOPE: routeScopeVar('operate'),
  /** What the MCP `run_sql` tool needs (the view tools need `read`). @defaultValue operate */
  SQL_TOOL_SCOPE: routeScopeVar('operate'),
  /** Most model turns (tool rounds) per chat request. @defaultValue 6 */
  AGENT_MAX_STEPS: positiveIntVar(6),
  /** Most tool calls of one model turn that are run. @defaultValue 8 */
  AGENT_MAX_TOOL_CALLS: positiveIntVar(8),
  /** Time one chat request may take, model calls and tools together. @defaultValue 60000 */
  AGENT_DEADLINE_MS: positiveIntVar(60_000),
  /** Most tokens the model may answer with, per call (every provider). @defaultValue 1024 */
  LLM_MAX_TOKENS: positiveIntVar(1024),
});

export type AnalyticsEnv = z.output<typeof analyticsEnvSchema>;

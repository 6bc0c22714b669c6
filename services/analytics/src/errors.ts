/** The analytics service's coded errors (HTTP status and client-facing detail). */
import { defineErrors } from '@platform/core';

export const analyticsErrors = defineErrors({
  WAREHOUSE_NOT_BUILT: {
    status: 503,
    detail:
      'The warehouse is not built yet; run `analytics build --source DIR` or wait for the first build to finish',
  },
  QUERY_TIMEOUT: { status: 504, detail: 'The query did not finish in time' },
  SQL_REJECTED: { status: 400, detail: 'Only a single read-only SELECT statement is allowed' },
  SQL_FAILED: { status: 400, detail: 'The query failed' },
  SQL_BUSY: { status: 503, detail: 'Too many SQL queries are running; retry in a moment' },
  SQL_RATE_LIMITED: { status: 429, detail: 'Too many SQL queries; retry later' },
  AGENT_RATE_LIMITED: { status: 429, detail: 'Too many chat requests; retry later' },
  LLM_UNAVAILABLE: { status: 502, detail: 'The language model did not give a usable answer' },
  LLM_TIMEOUT: { status: 504, detail: 'The language model did not answer in time' },
  AGENT_DEADLINE: { status: 504, detail: 'The agent did not finish its answer in time' },
  SQL_TOOL_FORBIDDEN: { status: 403, detail: 'run_sql needs an API key with its scope' },
  HISTORY_REJECTED: { status: 400, detail: 'The conversation history is not valid' },
  HOST_NOT_ALLOWED: { status: 403, detail: 'This Host is not allowed; see ALLOWED_HOSTS' },
  ORIGIN_NOT_ALLOWED: { status: 403, detail: 'This Origin is not allowed; see ALLOWED_ORIGINS' },
  MCP_SESSIONS_BUSY: {
    status: 503,
    detail: 'Too many open MCP SSE sessions; retry later or use /mcp',
  },
  MCP_SESSION_NOT_FOUND: { status: 404, detail: 'Unknown or closed MCP session' },
});

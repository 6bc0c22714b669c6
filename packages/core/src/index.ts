export { ConfigError, loadConfig, loadConfigOrExit } from './config/load-config.js';
export {
  booleanVar,
  listVar,
  nonNegativeIntVar,
  portVar,
  positiveIntVar,
  urlVar,
} from './config/env-types.js';
export { coreEnvSchema, routeScopeVar, s3Configured, type CoreEnv } from './config/core-env.js';
export { MicroBatcher } from './batching/micro-batcher.js';
export { seededRandom } from './random/seeded-random.js';
export { createLogger, type Logger, type LoggerSettings } from './logging/create-logger.js';
export {
  AppError,
  defineErrors,
  isAppError,
  type ErrorDefinition,
  type ErrorOptions,
  type ErrorRegistry,
} from './errors/app-error.js';
export { coreErrors, errorBody, replyWithError } from './errors/core-errors.js';
export {
  isDatabaseUnavailable,
  isDiskFailure,
  isPgliteUnavailable,
  isRedisUnavailable,
  RETRY_AFTER_SECONDS,
} from './errors/dependency-unavailable.js';
export {
  askAfterLostAnswer,
  IN_DOUBT_WAIT_MS,
  isUnsyncedCommit,
  mayHaveCommitted,
  type InDoubtAnswer,
} from './errors/in-doubt-write.js';
export { createHttpApp, type HttpAppOptions, type OpenApiInfo } from './http/create-http-app.js';
export { localServer } from './http/openapi/servers.js';
export {
  accessSecuritySchemes,
  securitySchemeName,
  type SecurityScheme,
} from './http/openapi/security-schemes.js';
export {
  errorResponse,
  errorResponses,
  errorSchema,
  ERROR_SCHEMA_ID,
} from './http/openapi/error-schema.js';
export {
  installResponseCheck,
  openApiPath,
  responseCheckEnabled,
} from './http/openapi/response-check.js';
export {
  accessPolicyFromEnv,
  listenHost,
  LOCAL_ACCESS,
  type AccessPolicy,
} from './http/access/access-policy.js';
export { loadApiKeys, parseApiKeys, type ApiKey } from './http/access/api-keys.js';
export {
  ACCESS_DETAILS,
  callerHasScope,
  effectiveScope,
  type RouteAccess,
} from './http/access/access-control.js';
export { isLoopbackAddress } from './http/access/loopback.js';
export {
  DEFAULT_ROUTE_SCOPE,
  KEY_SCOPES,
  type KeyScope,
  type RouteScope,
} from './http/access/scopes.js';
export { checkHealth, type HealthCheck, type HealthReport } from './http/health.js';
export { createMetricsRegistry } from './http/metrics.js';
export { startTypeScriptWorker } from './threads/typescript-worker.js';
export { handleShutdown, listen, type Closer, type ShutdownOptions } from './http/run-service.js';
export {
  CLIENT_ADDRESS_HEADER,
  createClientAddressResolver,
  type ClientAddressResolver,
} from './http/client-address.js';
export type {
  QueryOptions,
  QueryResult,
  SqlDatabase,
  SqlExecutor,
  Unlisten,
} from './sql/sql-database.js';
export { createSqlDatabase, type SqlDatabaseOptions } from './sql/create-sql-database.js';
export { advisoryLockKey } from './sql/advisory-key.js';
export {
  loadMigrations,
  runMigrations,
  splitStatements,
  type Migration,
} from './sql/migrations.js';
export {
  InvalidObjectKeyError,
  ObjectNotFoundError,
  type ObjectBody,
  type ObjectStore,
  type PutOptions,
  type SignedUrlOptions,
} from './storage/object-store.js';
export type { CounterStore, WindowCount } from './counters/counter-store.js';
export {
  createObjectStore,
  type FsStoreOptions,
  type ObjectStoreOptions,
  type S3StoreOptions,
} from './storage/create-object-store.js';
export { assertValidObjectKey, assertValidObjectPrefix } from './storage/object-key.js';
export {
  registerSignedObjectRoute,
  type SignedObjectRouteOptions,
} from './storage/signed-object-route.js';
export { createCounterStore, type CounterStoreOptions } from './counters/create-counter-store.js';
export {
  createRateLimiter,
  rateLimitHeaders,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitResult,
} from './counters/rate-limiter.js';
export {
  unavailableDependency,
  waitForDependency,
  type WaitForDependencyOptions,
} from './engines/wait-for-dependency.js';
export {
  openCounterStore,
  openObjectStore,
  openSqlDatabase,
  serviceDataDir,
} from './engines/open-resources.js';
export {
  createOutboundGuard,
  guardedFetch,
  OutboundLimitError,
  OutboundRefusedError,
  type GuardedRequestInit,
  type OutboundGuard,
  type OutboundGuardOptions,
  type Resolver,
} from './http/outbound/outbound-guard.js';
export {
  allowedOutbound,
  LOCAL_OUTBOUND,
  outboundGuardFromEnv,
  type OutboundEnv,
} from './http/outbound/outbound-policy.js';
export { forbiddenRange } from './http/outbound/address-ranges.js';
export { formatCsvField, formatCsvRecord, parseCsv } from './csv/rfc4180.js';
export { csvCellText } from './csv/cell-text.js';
export { toCsv } from './csv/to-csv.js';
export { prefersCsv } from './http/prefers-csv.js';
export { CLIENT_MODULE_PATH, registerClientModule } from './http/client-module.js';
export { ifNoneMatchHits } from './http/if-none-match.js';

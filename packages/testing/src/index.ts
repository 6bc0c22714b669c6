export { fixturesDir, osuFixture, osuFixturesDir } from './fixtures.js';
export {
  MADE_BEATMAP_MD5,
  MADE_BEATMAP_TITLE,
  MADE_OSU,
  madeOsuFixture,
  madeOsuFixturesDir,
  madeReplayJudgement,
  type KnownJudgement,
} from './osu/made-fixtures.js';
export { natsUrlForTests } from './nats.js';
export { createTestDatabase, postgresUrlForTests, type TestDatabase } from './postgres.js';
export { startS3Server } from './s3-server.js';
export { embeddedDefaultsEnv, redisUrlForTests, skipReason } from './engines.js';
export { CHROMIUM_PATH, chromiumSkipReason, launchChromium } from './chromium.js';
export { keepScreenshot } from './screenshots.js';
export { freePort, portFree } from './free-port.js';
export { RestartableService, type RestartableServiceOptions } from './restartable-service.js';
export { copyWhilePaused, restoreCopy } from './power-loss.js';
export {
  startOwnNats,
  startOwnPostgres,
  startOwnRedis,
  type OwnEngine,
  type OwnNats,
} from './own-engines.js';
export {
  assertEveryKindDrawn,
  kindDrawer,
  kindsInRounds,
  quantile,
  runChaosHarness,
  sleep,
  until,
  untilSettled,
} from './chaos-kit.js';
export { startTcpProxy, type ProxyMode, type TcpProxy } from './tcp-proxy.js';
export {
  assertExitsOnMissingDatabase,
  spawnServiceMain,
  startupTestPostgres,
  WAITS_FOR_DATABASE,
  type ServiceProcess,
} from './service-process.js';
export { missingDatabaseUrl, unreachableTestDatabase } from './unreachable-database.js';
export { guardEngines, type EngineGuard } from './engine-guard.js';
export {
  EIO,
  ENOSPC,
  faultAnswer,
  type FaultAnswer,
  diskFaultLibrary,
  fiuSkipReason,
  diskFaultsAvailable,
  diskFaultsSkipReason,
  serviceHealth,
  setDiskFull,
  setSyncCallFailing,
  setSyncFailing,
  spawnUnderFiu,
  startServiceUnderFiu,
} from './disk-faults.js';
export {
  bearer,
  checkKeyedAccess,
  checkLocalAccess,
  refusedByAccess,
  routeTable,
  testAccessPolicy,
  TEST_API_KEYS,
  TEST_KEYS,
  type AccessTable,
} from './access.js';
export { waitFor } from './wait-for.js';
export {
  assertFuzzClean,
  fuzzApp,
  fuzzSettings,
  type FuzzOptions,
  type FuzzReport,
} from './fuzz.js';
export { assertErrorTableInStep, errorTableOf, type ErrorRow } from './error-table.js';
export { assertSpecStatusesDocumented, type SpecStatuses } from './spec-statuses.js';
export { bundleEntry } from './bundled-entry.js';

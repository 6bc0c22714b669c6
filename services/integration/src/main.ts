/**
 * Entry point (`npm start` runs it through the launcher): validated env, logger, the
 * platform's parts for `INTEGRATION_ROLES` (all by default), graceful shutdown. A database
 * or broker that is unreachable at start, or lost during it, is waited for: the whole
 * start is tried again (it closes what it opened when it fails) with a growing back-off.
 * Any other failed start (a bad URL or credentials, a port in use, an incompatible
 * shipped contract) is logged and ends the process with exit code 1.
 */
import { createLogger, handleShutdown, loadConfigOrExit, waitForDependency } from '@platform/core';
import { integrationEnvSchema } from './config.js';
import { SERVICE, startPlatform, type RunningPlatform } from './platform.js';
import { unavailableAtStartup } from './startup-dependencies.js';

const env = loadConfigOrExit(integrationEnvSchema);
const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL });
let platform: RunningPlatform;
try {
  platform = await waitForDependency(
    'starting the platform (database, migrations, broker, topics)',
    () => startPlatform({ env, logger }),
    { logger, unavailable: unavailableAtStartup },
  );
} catch (error) {
  logger.fatal({ err: error }, 'integration platform failed to start');
  process.exit(1);
}
logger.info(
  { urls: platform.urls, broker: platform.broker.driver, database: platform.db.engine },
  'integration platform started',
);
handleShutdown({ logger, closers: [() => platform.close()] });

/**
 * Entry point (`npm start` runs it through the launcher): validated env, logger, the
 * platform's parts for `INTEGRATION_ROLES` (all by default), graceful shutdown. A failed
 * start (database, broker, a port in use, an incompatible shipped contract) is logged
 * and ends the process with exit code 1.
 */
import { createLogger, handleShutdown, loadConfigOrExit } from '@platform/core';
import { integrationEnvSchema } from './config.js';
import { SERVICE, startPlatform, type RunningPlatform } from './platform.js';

const env = loadConfigOrExit(integrationEnvSchema);
const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL });
let platform: RunningPlatform;
try {
  platform = await startPlatform({ env, logger });
} catch (error) {
  logger.fatal({ err: error }, 'integration platform failed to start');
  process.exit(1);
}
logger.info(
  { urls: platform.urls, broker: platform.broker.driver, database: platform.db.engine },
  'integration platform started',
);
handleShutdown({ logger, closers: [() => platform.close()] });

/**
 * Entry point (`npm start` runs it through the launcher): validated env, logger, the
 * platform's parts for `INTEGRATION_ROLES` (all by default), graceful shutdown.
 */
import { createLogger, handleShutdown, loadConfigOrExit } from '@platform/core';
import { integrationEnvSchema } from './config.js';
import { SERVICE, startPlatform } from './platform.js';

const env = loadConfigOrExit(integrationEnvSchema);
const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL });
const platform = await startPlatform({ env, logger });
logger.info({ urls: platform.urls, broker: platform.broker.driver, database: platform.db.engine }, 'integration platform started');
handleShutdown({ logger, closers: [() => platform.close()] });

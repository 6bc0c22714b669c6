/**
 * Entry point (`npm start` runs it through the launcher): validated env, logger, the
 * platform's parts for `INTEGRATION_ROLES` (all by default), graceful shutdown. A database
 * or broker that is unreachable at start, or lost during it, is waited for: the whole
 * start is tried again (it closes what it opened when it fails) with a growing back-off.
 * Any other failed start (a bad URL or credentials, a port in use, an incompatible
 * shipped contract) is logged and ends the process with exit code 1, and so does an
 * adapter's worker thread that crashes (`ADAPTER_THREADS`; the README's "Adapter threads"):
 * the rest is closed first, and the supervisor restarts the process.
 */
import { createLogger, handleShutdown, loadConfigOrExit, waitForDependency } from '@platform/core';
import { integrationEnvSchema } from './config.js';
import { SERVICE, startPlatform, type RunningPlatform } from './platform.js';
import { unavailableAtStartup } from './startup-dependencies.js';

const env = loadConfigOrExit(integrationEnvSchema);
const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL });
let platform: RunningPlatform | undefined;
let crashed = false;
const onThreadCrash = (role: string, error: Error) => {
  if (crashed) return;
  crashed = true;
  logger.fatal({ err: error, role }, 'an adapter thread crashed: closing the platform and exiting');
  // Bounded like a signal's shutdown: a close that hangs must not keep a half process up.
  setTimeout(() => process.exit(1), 15_000).unref();
  void (platform?.close() ?? Promise.resolve())
    .catch((closeError: unknown) => logger.error({ err: closeError }, 'closing after a crash'))
    .finally(() => process.exit(1));
};
try {
  platform = await waitForDependency(
    'starting the platform (database, migrations, broker, topics)',
    () => startPlatform({ env, logger, onThreadCrash }),
    { logger, unavailable: unavailableAtStartup },
  );
} catch (error) {
  logger.fatal({ err: error }, 'integration platform failed to start');
  process.exit(1);
}
logger.info(
  {
    urls: platform.urls,
    broker: platform.broker.driver,
    database: platform.db.engine,
    ...(platform.db.engine === 'pglite' && { pgliteThread: env.PGLITE_THREAD }),
  },
  'integration platform started',
);
handleShutdown({ logger, closers: [() => platform!.close()] });

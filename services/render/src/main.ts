/**
 * Entry point: load config, open engines, migrate, build the app, start the job processing
 * parts this process runs, listen, and shut down cleanly on SIGTERM/SIGINT. An unreachable
 * database is waited for (`openEngines`); a configuration error ends the process with
 * exit code 1 and one fatal line saying why.
 */
import {
  accessPolicyFromEnv,
  createClientAddressResolver,
  createLogger,
  createMetricsRegistry,
  handleShutdown,
  listen,
  listenHost,
  loadConfigOrExit,
} from '@platform/core';
import { buildRenderApp } from './app.js';
import { renderEnvSchema, settingsFromEnv } from './config.js';
import { createRenderContext } from './context.js';
import { openEngines, type RenderEngines } from './engines.js';
import { createRenderMetrics } from './metrics.js';
import { startJobProcessing } from './job-processing.js';

const env = loadConfigOrExit(renderEnvSchema);
const logger = createLogger({ service: 'render', level: env.LOG_LEVEL });
const settings = settingsFromEnv(env);
let engines: RenderEngines;
try {
  engines = await openEngines(env, logger);
} catch (error) {
  logger.fatal({ err: error }, 'render service failed to start');
  process.exit(1);
}
const ctx = createRenderContext({
  ...engines,
  settings,
  logger,
  clientAddress: createClientAddressResolver({ trustedProxies: env.TRUSTED_PROXIES, logger }),
});
const registry = createMetricsRegistry('render');
const renderMetrics = createRenderMetrics(registry, engines.db);
const processing = await startJobProcessing(ctx, env, engines.queue, renderMetrics);
const app = await buildRenderApp(ctx, {
  logger,
  access: accessPolicyFromEnv(env),
  metrics: registry,
  renderMetrics,
  extraHealth: {
    queue: async () => {
      await engines.queue.ping();
      return engines.queue.driver;
    },
  },
});
const url = await listen(app, { port: env.PORT, host: listenHost(env) });
logger.info(
  { url, db: engines.db.engine, storage: engines.store.driver, queue: engines.queue.driver },
  'render service listening',
);

handleShutdown({
  logger,
  closers: [() => app.close(), () => processing.stop(), () => ctx.close(), () => engines.close()],
});

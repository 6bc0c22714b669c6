/**
 * Builds the render service's HTTP app from injected engines: the core bootstrap
 * (health, metrics, OpenAPI, error handler), multipart, then every capability's routes.
 */
import multipart from '@fastify/multipart';
import {
  createHttpApp,
  localServer,
  createMetricsRegistry,
  type AccessPolicy,
  type Logger,
} from '@platform/core';
import type { Registry } from 'prom-client';
import { createRenderMetrics, type RenderMetrics } from './metrics.js';
import { classifyDependencyError } from './dependency-errors.js';
import type { FastifyInstance } from 'fastify';
import { registerAdmissionRoutes } from './admission/admission-routes.js';
import { registerArtifactRoutes } from './artifacts/artifacts-routes.js';
import { registerCallbackRoutes } from './callbacks/callbacks-routes.js';
import type { RenderContext } from './context.js';
import { registerClientModule, registerSignedObjectRoute } from '@platform/core';
import { legacyStatusSchema, v1JobSchema } from './jobs/job-schemas.js';
import { registerJobRoutes } from './jobs/jobs-routes.js';
import { registerEventRoutes } from './events/events-routes.js';
import { registerLegacyRoutes } from './legacy/legacy-routes.js';
import { registerPageRoutes } from './pages/pages-routes.js';
import { registerSkinRoutes } from './skins/skins-routes.js';
import { CALLBACK_SECURITY_SCHEME, callbackSecurityScheme } from './callbacks/signature.js';

export interface BuildAppOptions {
  /** Registry shared with the pipeline's metrics. @defaultValue a new one */
  metrics?: Registry;
  /** Service metrics already created on `metrics`. @defaultValue created here */
  renderMetrics?: RenderMetrics;
  /** Extra `/health` checks (queue, …) beside db, storage and counters. */
  extraHealth?: Record<string, () => Promise<unknown>>;
  logger: Logger;
  /** API keys and scopes (`accessPolicyFromEnv`). @defaultValue local mode */
  access?: AccessPolicy;
}

export async function buildRenderApp(
  ctx: RenderContext,
  options: BuildAppOptions,
): Promise<FastifyInstance> {
  const registry = options.metrics ?? createMetricsRegistry('render');
  const metrics = options.renderMetrics ?? createRenderMetrics(registry, ctx.db);
  const app = await createHttpApp({
    service: 'render',
    metrics: registry,
    logger: options.logger,
    ...(options.access ? { access: options.access } : {}),
    validationStatus: 422,
    classifyError: classifyDependencyError(ctx.db),
    health: {
      db: async () => {
        await ctx.db.ping();
        return ctx.db.engine;
      },
      storage: async () => {
        await ctx.store.ping();
        return ctx.store.driver;
      },
      counters: async () => {
        await ctx.counters.ping();
        return ctx.counters.driver;
      },
      ...options.extraHealth,
    },
    openapi: {
      title: 'Replay Rendering Service',
      version: '1.0.0',
      description:
        'Accepts osu! replays, renders them to video, serves skins and artifacts. Legacy routes are deprecated.',
      // PORT's default (config.ts).
      servers: [localServer(8727, 'The render service')],
      securitySchemes: { [CALLBACK_SECURITY_SCHEME]: callbackSecurityScheme },
      tags: [
        { name: 'render', description: 'Submit replays for rendering.' },
        { name: 'jobs', description: 'Render jobs: status, live events, cancel and delete.' },
        { name: 'skins', description: 'Skins to render with.' },
        { name: 'artifacts', description: 'Videos, thumbnails, logs, replays and skins.' },
        { name: 'legacy', description: 'The deprecated routes of the first API.' },
        { name: 'pages', description: 'The web pages.' },
      ],
    },
  });
  // A request must arrive whole in time; uploads also have an idle timeout while read.
  app.server.requestTimeout = ctx.settings.requestTimeoutMs;
  app.server.headersTimeout = Math.min(ctx.settings.requestTimeoutMs, 30_000);
  app.addSchema(v1JobSchema);
  app.addSchema(legacyStatusSchema);
  await app.register(multipart, { throwFileSizeLimit: false });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (request.method === 'POST' && (route === '/v1/render' || route === '/render')) {
      metrics.submissions.inc({ route, status_code: String(reply.statusCode) });
    }
  });

  registerSignedObjectRoute(app, ctx.store);
  registerAdmissionRoutes(app, ctx);
  registerJobRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  registerSkinRoutes(app, ctx);
  registerArtifactRoutes(app, ctx);
  registerLegacyRoutes(app, ctx);
  registerCallbackRoutes(app, ctx);
  registerPageRoutes(app, ctx);
  // The home and player pages call the API through it.
  registerClientModule(app, 'pages');
  return app;
}

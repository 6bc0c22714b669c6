/**
 * The admin HTTP API of an adapter: pause, resume and status of its listener, and
 * `GET /interns` over its own target (when the target has a view), on top of core's
 * `/health`, `/metrics` and `/openapi.json`.
 */
import { isMainThread, threadId } from 'node:worker_threads';
import { createHttpApp, type AccessPolicy, type Logger } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Broker } from '../../broker/broker.js';
import type { AdapterRuntime } from './adapter-runtime.js';
import type { AdapterTarget } from './adapter-target.js';

const statusSchema = {
  description: 'The adapter listener: state, attachments, assignments and lag',
  type: 'object',
  required: ['adapterType', 'consumerGroup', 'state', 'paused'],
  properties: {
    adapterType: { type: 'string' },
    consumerGroup: { type: 'string' },
    state: { type: 'string', enum: ['starting', 'running', 'paused', 'stopped'] },
    paused: { type: 'boolean' },
    brokerDriver: { type: 'string' },
    attachments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          attachmentId: { type: 'string' },
          contractId: { type: 'string' },
          enabled: { type: 'boolean' },
          lag: { type: 'integer' },
          written: { type: 'integer' },
          writtenPerSecond: { type: 'number' },
          lastWriteAt: { type: ['string', 'null'] },
          failures: { type: 'integer' },
          lastError: {
            anyOf: [
              {
                type: 'object',
                properties: { message: { type: 'string' }, at: { type: 'string' } },
              },
              { type: 'null' },
            ],
          },
        },
      },
    },
    topics: { type: 'array', items: { type: 'string' } },
    assignments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          topic: { type: 'string' },
          partition: { type: 'integer' },
          committedOffset: { type: 'integer' },
          endOffset: { type: 'integer' },
          lag: { type: 'integer' },
        },
      },
    },
    lag: { type: 'integer' },
    lastRefreshAt: { type: ['string', 'null'] },
    lastRefreshError: { type: ['string', 'null'] },
  },
} as const;

export async function buildAdminApp(deps: {
  runtime: AdapterRuntime;
  target: AdapterTarget;
  broker: Broker;
  logger: Logger;
  metrics: Registry;
  access?: AccessPolicy | undefined;
  /** Where the admin API answers (the document's server). */
  adminUrl?: string | undefined;
}): Promise<FastifyInstance> {
  const { runtime, target } = deps;
  const app = await createHttpApp({
    service: `integration-${target.type}-adapter`,
    logger: deps.logger,
    metrics: deps.metrics,
    ...(deps.access ? { access: deps.access } : {}),
    health: {
      // Which thread runs this adapter (ADAPTER_THREADS): its id, and whether it is a worker.
      thread: async () => ({ threadId, worker: !isMainThread }),
      broker: () => deps.broker.ping(),
      ...(target.ping ? { target: () => target.ping!() } : {}),
    },
    openapi: {
      title: `Integration ${target.type} adapter`,
      version: '1.0.0',
      description: target.description,
      servers: deps.adminUrl
        ? [{ url: deps.adminUrl, description: "This adapter's admin API" }]
        : [],
      tags: [
        { name: 'admin', description: 'Pause, resume and watch the adapter listener.' },
        { name: 'target', description: "Reads of the adapter's own target." },
      ],
    },
  });
  const tags = ['admin'];
  app.post(
    '/admin/pause',
    {
      schema: {
        operationId: 'pauseAdapter',
        summary: 'Pause the adapter consumer (offsets stop advancing)',
        tags,
        response: { 200: statusSchema },
      },
    },
    async () => {
      runtime.pause();
      return runtime.status();
    },
  );
  app.post(
    '/admin/resume',
    {
      schema: {
        operationId: 'resumeAdapter',
        summary: 'Resume the adapter consumer (the backlog is consumed)',
        tags,
        response: { 200: statusSchema },
      },
    },
    async () => {
      runtime.resume();
      return runtime.status();
    },
  );
  app.get(
    '/admin/status',
    {
      schema: {
        operationId: 'getAdapterStatus',
        summary:
          'Listener state, assignments and lag; per attachment its lag, records written, rate and last error',
        tags,
        response: { 200: statusSchema },
      },
    },
    async () => runtime.status(),
  );
  if (target.listInterns) {
    app.get(
      '/interns',
      {
        config: { scope: 'read' },
        schema: {
          operationId: 'listTargetInterns',
          summary: "The interns in this adapter's own target",
          tags: ['target'],
          response: {
            200: {
              description: 'Every intern row or line the target holds',
              type: 'object',
              required: ['interns'],
              properties: {
                interns: { type: 'array', items: { type: 'object', additionalProperties: true } },
              },
            },
          },
        },
      },
      async () => ({ interns: await target.listInterns!() }),
    );
  }
  return app;
}

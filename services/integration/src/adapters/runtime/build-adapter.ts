/**
 * Assembles an adapter from a target: runtime (consumer group, pipeline, refresh) and its
 * admin app. Each adapter type's `build…Adapter` calls this; a new adapter type needs
 * nothing else (spec rule 6).
 */
import { createMetricsRegistry, type AccessPolicy, type Logger } from '@platform/core';
import type { FastifyInstance } from 'fastify';
import type { Broker } from '../../broker/broker.js';
import { buildAdminApp } from './admin-app.js';
import type { AdapterTarget } from './adapter-target.js';
import { AdapterRuntime } from './adapter-runtime.js';
import type { AttachmentSource } from './control-plane-client.js';
import { retryPolicy, type RetryPolicy } from './retry-policy.js';

/** What every `build…Adapter` takes. */
export interface AdapterDeps {
  broker: Broker;
  logger: Logger;
  /** The control plane (`createControlPlaneClient({ baseUrl })`). */
  attachments: AttachmentSource;
  /** URL the admin API answers on, sent in the type descriptor. */
  adminUrl?: string;
  /** @defaultValue `adapter.<type>` */
  consumerGroup?: string;
  /** Attachment refresh (and heartbeat) interval. @defaultValue 5000 */
  refreshIntervalMs?: number;
  /** Per-adapter retry policy. @defaultValue 3 attempts, 200 ms doubling up to 5 s */
  retry?: Partial<RetryPolicy>;
  /** Who may call the admin app (`accessPolicyFromEnv`). @defaultValue local mode */
  access?: AccessPolicy;
}

export interface Adapter {
  readonly type: string;
  readonly consumerGroup: string;
  /** Admin HTTP app (not listening: the caller listens on its port). */
  readonly app: FastifyInstance;
  readonly runtime: AdapterRuntime;
  /** Validates the target, registers the type, reads attachments and starts consuming. */
  start(): Promise<void>;
  /** Stops consuming (in-flight record finishes), closes the target and the admin app. */
  stop(): Promise<void>;
}

export async function buildAdapter(
  deps: AdapterDeps & { target: AdapterTarget },
): Promise<Adapter> {
  const { target } = deps;
  const consumerGroup = deps.consumerGroup ?? `adapter.${target.type}`;
  const logger = deps.logger.child({ adapter: target.type, consumerGroup });
  const metrics = createMetricsRegistry(`integration-${target.type}-adapter`);
  const runtime = new AdapterRuntime({
    target,
    broker: deps.broker,
    logger,
    attachments: deps.attachments,
    consumerGroup,
    adminUrl: deps.adminUrl,
    refreshIntervalMs: deps.refreshIntervalMs ?? 5000,
    retry: retryPolicy(deps.retry),
    metrics,
  });
  const app = await buildAdminApp({
    runtime,
    target,
    broker: deps.broker,
    logger,
    metrics,
    access: deps.access,
    adminUrl: deps.adminUrl,
  });
  let stopped = false;
  return {
    type: target.type,
    consumerGroup,
    app,
    runtime,
    start: () => runtime.start(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await runtime.stop();
      await target.close?.();
      await app.close();
    },
  };
}

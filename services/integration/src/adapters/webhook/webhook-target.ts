/**
 * The webhook target: POSTs the envelope (JSON, camelCase) to the attachment's URL with
 * bearer or HMAC authentication. 2xx is written; 5xx, 408, 429, timeouts and network
 * errors are retriable (`TransientDeliveryError`); any other status is refused for good
 * (`PermanentDeliveryError`, dead-lettered without retries).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AdapterTarget, WriteOutcome } from '../runtime/adapter-target.js';
import { PermanentDeliveryError, TransientDeliveryError } from '../runtime/failures.js';
import { toEnvelopeJson } from '../runtime/local-envelope.js';
import { DeliveredStore } from './delivered-store.js';
import { postJson } from './http-post.js';
import { parseWebhookConfig, WEBHOOK_CONFIG_SCHEMA, type WebhookConfig } from './webhook-config.js';

export interface WebhookTargetOptions {
  /** Folder of the delivered-recordId files. */
  stateDir: string;
  /** Used when an attachment sets none. @defaultValue 3000 */
  connectTimeoutMs?: number;
  /** Used when an attachment sets none. @defaultValue 10000 */
  readTimeoutMs?: number;
}

interface Mapping {
  attachmentId: string;
  config: WebhookConfig;
}

export const WEBHOOK_DESCRIPTION = 'POSTs each envelope to an HTTP endpoint with bearer or HMAC authentication.';

export function createWebhookTarget(options: WebhookTargetOptions): AdapterTarget<Mapping, string> {
  const delivered = new DeliveredStore(options.stateDir);
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 });
  const defaults = { connectTimeoutMs: options.connectTimeoutMs ?? 3000, readTimeoutMs: options.readTimeoutMs ?? 10_000 };

  return {
    type: 'webhook',
    description: WEBHOOK_DESCRIPTION,
    configSchema: WEBHOOK_CONFIG_SCHEMA,
    async resolveMapping(attachment) {
      return { attachmentId: attachment.attachmentId, config: parseWebhookConfig(attachment.config, defaults) };
    },
    isDuplicate: (mapping, event) => delivered.has(mapping.attachmentId, event.envelope.recordId),
    transform: (_mapping, event) => JSON.stringify(toEnvelopeJson(event.envelope)),
    async write(mapping, body, event): Promise<WriteOutcome> {
      const { config } = mapping;
      const headers: Record<string, string> = {
        'idempotency-key': event.envelope.recordId,
        'x-trace-id': event.envelope.traceId,
        'user-agent': 'integration-webhook-adapter/1',
      };
      if (config.authType === 'bearer') headers.authorization = `Bearer ${config.token}`;
      else headers[config.signatureHeader.toLowerCase()] = `sha256=${createHmac('sha256', config.secret!).update(body).digest('hex')}`;
      const agent = config.url.protocol === 'https:' ? httpsAgent : httpAgent;
      const response = await postJson(config.url, body, headers, config, agent);
      if (response.status >= 200 && response.status < 300) {
        await delivered.add(mapping.attachmentId, event.envelope.recordId);
        return 'written';
      }
      const detail = `webhook ${config.url.origin}${config.url.pathname} answered ${response.status}: ${response.body.slice(0, 200)}`;
      if (response.status >= 500 || response.status === 408 || response.status === 429) throw new TransientDeliveryError(detail);
      throw new PermanentDeliveryError(detail, response.status);
    },
    async close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

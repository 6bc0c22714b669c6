/**
 * The webhook target: POSTs the envelope (JSON, camelCase) to the attachment's URL with
 * bearer or HMAC authentication. A batch is delivered with one request in flight per
 * natural key (keys in parallel, up to the agent's sockets; each key's events in order);
 * with the attachment's `batch` config, as JSON arrays of envelopes in log order, one
 * request after another (so each key stays in order). 2xx is written; 5xx, 408, 429,
 * timeouts and network errors are retriable (`TransientDeliveryError`); any other status
 * is refused for good (`PermanentDeliveryError`). A refused array is not dead-lettered
 * whole: the runtime retries its records one by one (arrays of one), so only the records
 * the receiver refuses on their own are dead-lettered.
 */
import { createHash, createHmac } from 'node:crypto';
import { createOutboundGuard, type OutboundGuardOptions } from '@platform/core';
import type { AdapterTarget, TargetEvent, WriteOutcome } from '../runtime/adapter-target.js';
import { alreadyApplied, positionsAfter } from '../runtime/applied-position.js';
import { PermanentDeliveryError, TransientDeliveryError } from '../runtime/failures.js';
import { toEnvelopeJson } from '../runtime/local-envelope.js';
import { DeliveredStore, type Delivery } from './delivered-store.js';
import { postJson } from './http-post.js';
import { parseWebhookConfig, WEBHOOK_CONFIG_SCHEMA, type WebhookConfig } from './webhook-config.js';

export interface WebhookTargetOptions {
  /** Folder of the delivered-recordId files. */
  stateDir: string;
  /** Used when an attachment sets none. @defaultValue 3000 */
  connectTimeoutMs?: number;
  /** Used when an attachment sets none. @defaultValue 10000 */
  readTimeoutMs?: number;
  /** Which target addresses may be reached (`ALLOWED_OUTBOUND`, see core's outbound guard). @defaultValue no forbidden address (loopback and private included) */
  outbound?: Pick<OutboundGuardOptions, 'allowed' | 'resolve'>;
  /** Clock for the signature timestamp. @defaultValue `Date.now` */
  now?: () => number;
  /** Delivered recordIds kept below each partition's position (`WEBHOOK_DELIVERED_KEEP`). @defaultValue 10000 */
  deliveredKeep?: number;
}

interface Mapping {
  attachmentId: string;
  config: WebhookConfig;
}

/** Unix seconds of an HMAC-signed delivery; the signature covers `<timestamp>.<body>`. */
export const TIMESTAMP_HEADER = 'x-webhook-timestamp';

const deliveryOf = (event: TargetEvent): Delivery =>
  event.position
    ? { recordId: event.envelope.recordId, slot: event.position, offset: event.position.offset }
    : { recordId: event.envelope.recordId };

/** Requests in flight per attachment type (one per key of a batch). */
const SOCKETS = 16;

export const WEBHOOK_DESCRIPTION =
  'POSTs each envelope to an HTTP endpoint with bearer or HMAC authentication.';

export function createWebhookTarget(options: WebhookTargetOptions): AdapterTarget<Mapping, string> {
  const delivered = new DeliveredStore(options.stateDir, options.deliveredKeep);
  // Targets are given by whoever attaches: connections go through the outbound guard.
  const { http: httpAgent, https: httpsAgent } = createOutboundGuard({
    ...options.outbound,
    maxSockets: SOCKETS,
  }).agents;
  const now = options.now ?? Date.now;
  const defaults = {
    connectTimeoutMs: options.connectTimeoutMs ?? 3000,
    readTimeoutMs: options.readTimeoutMs ?? 10_000,
  };

  /** Delivered already: its recordId is kept, or it sits below the offset from which ids are kept. */
  const isDuplicate = async (mapping: Mapping, event: TargetEvent) => {
    const view = await delivered.view(mapping.attachmentId);
    const keptFrom = event.position ? view.idsKeptFrom(event.position) : undefined;
    return alreadyApplied([event], view.has, keptFrom).size > 0;
  };
  const envelopeJson = (event: TargetEvent) => JSON.stringify(toEnvelopeJson(event.envelope));
  // In batch mode every body is an array, a record retried alone too: the receiver reads one shape.
  const transform = (mapping: Mapping, event: TargetEvent) =>
    mapping.config.batch ? `[${envelopeJson(event)}]` : envelopeJson(event);
  /**
   * POSTs one body; resolves once the receiver answered 2xx (not yet recorded as delivered).
   * `events` are the envelopes in it: one names the request by its recordId and traceId;
   * an array of several by a digest of their recordIds (the same array again, the same key).
   */
  const post = async (mapping: Mapping, body: string, events: TargetEvent[]): Promise<void> => {
    const { config } = mapping;
    const single = events.length === 1 ? events[0]!.envelope : undefined;
    const headers: Record<string, string> = {
      'idempotency-key': single
        ? single.recordId
        : `batch-${createHash('sha256')
            .update(events.map((event) => event.envelope.recordId).join(','))
            .digest('hex')
            .slice(0, 32)}`,
      ...(single ? { 'x-trace-id': single.traceId } : {}),
      'user-agent': 'integration-webhook-adapter/1',
    };
    if (config.authType === 'bearer') headers.authorization = `Bearer ${config.token}`;
    else {
      // The signature covers the timestamp, so a captured delivery cannot be replayed later.
      const timestamp = String(Math.floor(now() / 1000));
      headers[TIMESTAMP_HEADER] = timestamp;
      headers[config.signatureHeader.toLowerCase()] =
        `sha256=${createHmac('sha256', config.secret!).update(`${timestamp}.${body}`).digest('hex')}`;
    }
    const agent = config.url.protocol === 'https:' ? httpsAgent : httpAgent;
    const response = await postJson(config.url, body, headers, config, agent);
    if (response.status >= 200 && response.status < 300) return;
    const detail = `webhook ${config.url.origin}${config.url.pathname} answered ${response.status}: ${response.body.slice(0, 200)}`;
    if (response.status >= 500 || response.status === 408 || response.status === 429)
      throw new TransientDeliveryError(detail);
    throw new PermanentDeliveryError(detail, response.status);
  };

  const write = async (
    mapping: Mapping,
    body: string,
    event: TargetEvent,
  ): Promise<WriteOutcome> => {
    if (await isDuplicate(mapping, event)) return 'duplicate';
    await post(mapping, body, [event]);
    await delivered.record(mapping.attachmentId, [deliveryOf(event)], positionsAfter([event]));
    return 'written';
  };

  /**
   * Batch mode: the events not delivered yet, in offset order, as arrays within the
   * attachment's bounds, one request after another; stops at the first failure.
   */
  const postArrays = async (
    mapping: Mapping,
    events: TargetEvent[],
    outcomes: WriteOutcome[],
  ): Promise<{ error: unknown } | undefined> => {
    const { maxRecords, maxBytes } = mapping.config.batch!;
    const seen = new Set<string>();
    const pending: number[] = [];
    for (const [i, event] of events.entries()) {
      // Those delivered before were marked by `writeBatch` (`alreadyApplied`).
      if (outcomes[i]) continue;
      // A record twice in one batch (a redelivery next to the original) goes once.
      if (seen.has(event.envelope.recordId)) outcomes[i] = 'duplicate';
      else {
        seen.add(event.envelope.recordId);
        pending.push(i);
      }
    }
    let chunk: number[] = [];
    let parts: string[] = [];
    let bytes = 2;
    const send = async () => {
      if (chunk.length === 0) return;
      await post(
        mapping,
        `[${parts.join(',')}]`,
        chunk.map((i) => events[i]!),
      );
      for (const i of chunk) outcomes[i] = 'written';
      chunk = [];
      parts = [];
      bytes = 2;
    };
    try {
      for (const i of pending) {
        const part = envelopeJson(events[i]!);
        const size = Buffer.byteLength(part) + 1;
        if (chunk.length >= maxRecords || (chunk.length > 0 && bytes + size > maxBytes))
          await send();
        chunk.push(i);
        parts.push(part);
        bytes += size;
      }
      await send();
    } catch (error) {
      return { error };
    }
    return undefined;
  };

  /** Each key's events in order; keys side by side, at most SOCKETS at once. Throws the first failure after all settled. */
  const writeBatch = async (mapping: Mapping, events: TargetEvent[]): Promise<WriteOutcome[]> => {
    const outcomes: WriteOutcome[] = new Array(events.length);
    const slot = events.find((event) => event.position)?.position;
    const view = await delivered.view(mapping.attachmentId);
    const applied = alreadyApplied(events, view.has, slot ? view.idsKeptFrom(slot) : undefined);
    const byKey = new Map<string, number[]>();
    events.forEach((event, i) => {
      if (applied.has(i)) outcomes[i] = 'duplicate';
      else if (!mapping.config.batch) {
        const queue = byKey.get(event.envelope.naturalKey);
        if (queue) queue.push(i);
        else byKey.set(event.envelope.naturalKey, [i]);
      }
    });
    const queues = [...byKey.values()];
    // A batch may carry one record twice (a redelivery next to the original; same key, so
    // same queue): the second is a duplicate, as it would be in a later batch.
    const postedNow = new Set<string>();
    let failure = mapping.config.batch ? await postArrays(mapping, events, outcomes) : undefined;
    const worker = async () => {
      for (let queue = queues.shift(); queue; queue = queues.shift()) {
        for (const i of queue) {
          const event = events[i]!;
          try {
            if (postedNow.has(event.envelope.recordId) || (await isDuplicate(mapping, event)))
              outcomes[i] = 'duplicate';
            else {
              await post(mapping, transform(mapping, event), [event]);
              postedNow.add(event.envelope.recordId);
              outcomes[i] = 'written';
            }
          } catch (error) {
            failure ??= { error };
            break; // the rest of this key waits for the batch to come again
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SOCKETS, queues.length) }, worker));
    // What was delivered is recorded (one append) even when another key failed: the batch
    // comes again and skips it. The position only passes events decided in offset order
    // (up to the first one left undelivered).
    const decided = outcomes.findIndex((outcome) => outcome === undefined);
    await delivered.record(
      mapping.attachmentId,
      events.filter((_, i) => outcomes[i] === 'written').map(deliveryOf),
      positionsAfter(events, decided === -1 ? events.length : decided),
    );
    if (failure) throw failure.error;
    return outcomes;
  };

  return {
    type: 'webhook',
    description: WEBHOOK_DESCRIPTION,
    configSchema: WEBHOOK_CONFIG_SCHEMA,
    async resolveMapping(attachment) {
      return {
        attachmentId: attachment.attachmentId,
        config: parseWebhookConfig(attachment.config, defaults),
      };
    },
    isDuplicate,
    transform,
    write,
    writeBatch,
    appliedPosition: (mapping, slot) => delivered.position(mapping.attachmentId, slot),
    async appliedOf(mapping, events) {
      const view = await delivered.view(mapping.attachmentId);
      const slot = events.find((event) => event.position)?.position;
      return alreadyApplied(events, view.has, slot ? view.idsKeptFrom(slot) : undefined);
    },
    async close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

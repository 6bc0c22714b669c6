/**
 * Reads a message of `platform.dlq` (spec section 2.5, camelCase JSON) into a dead-letter
 * row. Tolerant like every consumer: unknown properties are ignored, `originalPayload`
 * may be JSON, a string holding JSON or text, or base64 bytes (`{ "base64": "…" }`), and
 * the trace id is read off the original envelope or the `traceId` header. When neither the
 * dead letter nor a broken original names its contract, it is derived from the original
 * topic (`{contractId}.created|updated|deleted`; the legacy `intern.created` is interns),
 * so poison messages still group under their contract.
 * Returns undefined when the message is not a dead-letter envelope at all.
 */
import { randomUUID } from 'node:crypto';
import type { BrokerRecord } from '../broker/broker.js';
import { INTERNS_CONTRACT_ID } from '../contracts/interns-contract.js';
import { LEGACY_INTERN_TOPIC } from '../contracts/topics.js';
import type { NewDeadLetter } from './dead-letter-store.js';

function contractOfTopic(topic: string): string | null {
  if (topic === LEGACY_INTERN_TOPIC.name) return INTERNS_CONTRACT_ID;
  const match = /^([a-z][a-z0-9_-]{0,62})\.(created|updated|deleted)$/.exec(topic);
  return match ? match[1]! : null;
}

const text = (value: unknown, fallback = ''): string =>
  typeof value === 'string' ? value : fallback;
const int = (value: unknown): number =>
  Number.isFinite(Number(value)) ? Math.trunc(Number(value)) : 0;

function decodePayload(value: unknown): unknown {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (
    value &&
    typeof value === 'object' &&
    typeof (value as { base64?: unknown }).base64 === 'string'
  ) {
    return decodePayload(
      Buffer.from((value as { base64: string }).base64, 'base64').toString('utf8'),
    );
  }
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') {
    return decodePayload(Buffer.from((value as { data: number[] }).data).toString('utf8'));
  }
  return value;
}

export function parseDeadLetter(record: BrokerRecord): NewDeadLetter | undefined {
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(record.value.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    body = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof body.errorType !== 'string') return undefined;
  const originalPayload = decodePayload(body.originalPayload);
  const envelope = (
    originalPayload && typeof originalPayload === 'object' ? originalPayload : {}
  ) as Record<string, unknown>;
  const quarantinedAt = new Date(text(body.quarantinedAt, record.timestamp.toISOString()));
  return {
    id: randomUUID(),
    deadLetterTopic: record.topic,
    deadLetterPartition: record.partition,
    deadLetterOffset: record.offset,
    originalTopic: text(body.originalTopic),
    originalPartition: int(body.originalPartition),
    originalOffset: int(body.originalOffset),
    originalKey: text(body.originalKey, record.key),
    contractId:
      typeof body.contractId === 'string'
        ? body.contractId
        : typeof envelope.contractId === 'string'
          ? envelope.contractId
          : contractOfTopic(text(body.originalTopic)),
    originalPayload,
    errorType: body.errorType,
    errorMessage: text(body.errorMessage),
    failedAdapter: text(body.failedAdapter),
    attemptCount: int(body.attemptCount),
    quarantinedAt: Number.isNaN(quarantinedAt.getTime())
      ? record.timestamp.toISOString()
      : quarantinedAt.toISOString(),
    traceId: text(envelope.traceId) || record.headers.traceId || record.headers['trace-id'] || null,
  };
}

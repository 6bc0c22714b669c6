/** The dead-letter envelope of spec section 2.5, published to `platform.dlq` keyed by the original key. */
import type { Broker, BrokerRecord } from '../../broker/broker.js';
import type { ErrorType } from './failures.js';
import { parseJsonObject } from './local-envelope.js';

export const DEAD_LETTER_TOPIC = 'platform.dlq';

export interface DeadLetter {
  originalTopic: string;
  originalPartition: number;
  originalOffset: number;
  originalKey: string;
  contractId: string | null;
  /** The original message: its JSON when it parses, else the raw text. */
  originalPayload: unknown;
  errorType: ErrorType;
  errorMessage: string;
  failedAdapter: string;
  attemptCount: number;
  quarantinedAt: string;
  replayed: false;
  replayedAt: null;
  /** Correlates with the submission's logs (envelope field of the observability release). */
  traceId: string | null;
}

export function buildDeadLetter(input: {
  record: BrokerRecord;
  contractId: string | null;
  traceId: string | null;
  errorType: ErrorType;
  errorMessage: string;
  failedAdapter: string;
  attemptCount: number;
}): DeadLetter {
  let originalPayload: unknown;
  try {
    originalPayload = parseJsonObject(input.record.value);
  } catch {
    originalPayload = input.record.value.toString('utf8');
  }
  return {
    originalTopic: input.record.topic,
    originalPartition: input.record.partition,
    originalOffset: input.record.offset,
    originalKey: input.record.key,
    contractId: input.contractId,
    originalPayload,
    errorType: input.errorType,
    errorMessage: input.errorMessage,
    failedAdapter: input.failedAdapter,
    attemptCount: input.attemptCount,
    quarantinedAt: new Date().toISOString(),
    replayed: false,
    replayedAt: null,
    traceId: input.traceId,
  };
}

export async function publishDeadLetter(broker: Broker, deadLetter: DeadLetter): Promise<void> {
  await broker.publish(
    DEAD_LETTER_TOPIC,
    deadLetter.originalKey || 'unkeyed',
    JSON.stringify(deadLetter),
    {
      ...(deadLetter.traceId ? { traceId: deadLetter.traceId } : {}),
      failedAdapter: deadLetter.failedAdapter,
      errorType: deadLetter.errorType,
    },
  );
}

/**
 * Replay of a dead letter (spec section 3): the original envelope is republished to the
 * topic derived from its own `recordType` and `contractId` (flat first-release messages
 * go back to `intern.created`), keyed by its natural key; the entry is kept and marked
 * `replayed` with `replayedAt`.
 */
import { isAppError, type SqlExecutor } from '@platform/core';
import { BrokerUnavailableError, type Broker, type PublishResult } from '../broker/broker.js';
import { findContract } from '../contracts/contract-store.js';
import { LEGACY_INTERN_TOPIC, topicForRecordType } from '../contracts/topics.js';
import { RETRY_AFTER_SECONDS } from '../dependency-errors.js';
import { integrationErrors } from '../errors.js';
import {
  findDeadLetter,
  markReplayed,
  selectDeadLetterIds,
  type DeadLetter,
  type DeadLetterFilter,
} from './dead-letter-store.js';

async function targetTopic(
  db: SqlExecutor,
  message: Record<string, unknown>,
  deadLetter: DeadLetter,
): Promise<string> {
  const { contractId, recordType } = message;
  if (typeof contractId === 'string' && typeof recordType === 'string') {
    const stored = await findContract(db, contractId);
    const topic = stored && topicForRecordType(stored.contract, recordType);
    if (topic) return topic;
    throw integrationErrors.DEAD_LETTER_NOT_REPLAYABLE({
      detail: `cannot replay: contract ${contractId} declares no record type ${recordType}`,
    });
  }
  if (
    contractId === undefined &&
    typeof message.recordId === 'string' &&
    deadLetter.originalTopic === LEGACY_INTERN_TOPIC.name
  ) {
    return LEGACY_INTERN_TOPIC.name;
  }
  throw integrationErrors.DEAD_LETTER_NOT_REPLAYABLE();
}

export async function replayDeadLetter(
  db: SqlExecutor,
  broker: Broker,
  id: string,
): Promise<{ deadLetter: DeadLetter; published: PublishResult }> {
  const deadLetter = await findDeadLetter(db, id);
  if (!deadLetter) throw integrationErrors.DEAD_LETTER_NOT_FOUND();
  const message = deadLetter.originalPayload;
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    throw integrationErrors.DEAD_LETTER_NOT_REPLAYABLE();
  const envelope = message as Record<string, unknown>;
  const topic = await targetTopic(db, envelope, deadLetter);
  const key =
    typeof envelope.naturalKey === 'string' ? envelope.naturalKey : deadLetter.originalKey;
  const headers: Record<string, string> = { replayOf: deadLetter.id };
  if (deadLetter.traceId) headers.traceId = deadLetter.traceId;
  let published: PublishResult;
  try {
    published = await broker.publish(topic, key, JSON.stringify(envelope), headers);
  } catch (error) {
    if (error instanceof BrokerUnavailableError)
      throw integrationErrors.BROKER_UNAVAILABLE({
        cause: error,
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      });
    throw error;
  }
  return { deadLetter: (await markReplayed(db, id)) ?? deadLetter, published };
}

export interface BulkReplayResult {
  /** Entries the filter selected in all (before the limit). */
  matched: number;
  replayed: Array<{ id: string; topic: string }>;
  /** Entries that could not be replayed, each with the reason; they stay unreplayed. */
  failed: Array<{ id: string; code: string; detail: string }>;
  /** Selected entries not tried because the broker went away (replay them again later). */
  notAttempted: string[];
}

/**
 * Replays the entries a filter selects, oldest first, at most `limit`, one after the
 * other through `replayDeadLetter`. An entry that cannot be replayed is reported and the
 * rest go on; when the broker is unavailable the remaining entries are left untried
 * (each publish would fail the same way) and reported as such.
 */
export async function replayDeadLetters(
  db: SqlExecutor,
  broker: Broker,
  filter: DeadLetterFilter,
  limit: number,
): Promise<BulkReplayResult> {
  const { ids, matched } = await selectDeadLetterIds(db, filter, limit);
  const result: BulkReplayResult = { matched, replayed: [], failed: [], notAttempted: [] };
  for (const [index, id] of ids.entries()) {
    try {
      const { published } = await replayDeadLetter(db, broker, id);
      result.replayed.push({ id, topic: published.topic });
    } catch (error) {
      if (!isAppError(error)) throw error;
      result.failed.push({ id, code: error.code, detail: error.detail });
      if (error.code === 'BROKER_UNAVAILABLE') {
        result.notAttempted = ids.slice(index + 1);
        break;
      }
    }
  }
  return result;
}

/**
 * The control plane's consumer group on `platform.dlq`: every dead letter lands in the
 * `dead_letters` table the read API serves. A message that is not a dead-letter envelope
 * is logged and committed (it cannot become readable by retrying).
 */
import type { Logger, SqlExecutor } from '@platform/core';
import type { Broker, Consumer } from '../broker/broker.js';
import { DEAD_LETTER_TOPIC } from '../contracts/topics.js';
import { insertDeadLetter } from './dead-letter-store.js';
import { parseDeadLetter } from './parse-dead-letter.js';

export const DEAD_LETTER_GROUP = 'control-plane.dead-letters';

export async function startDeadLetterConsumer(deps: {
  db: SqlExecutor;
  broker: Broker;
  logger: Logger;
}): Promise<Consumer> {
  const { db, broker, logger } = deps;
  await broker.ensureTopic(DEAD_LETTER_TOPIC);
  return broker.subscribe(
    { groupId: DEAD_LETTER_GROUP, topics: [DEAD_LETTER_TOPIC.name], fromBeginning: true },
    async (record) => {
      const deadLetter = parseDeadLetter(record);
      if (!deadLetter) {
        logger.error(
          { topic: record.topic, partition: record.partition, offset: record.offset },
          'not a dead-letter envelope; skipped',
        );
        return;
      }
      const stored = await insertDeadLetter(db, deadLetter);
      logger.warn(
        {
          traceId: deadLetter.traceId,
          contractId: deadLetter.contractId,
          errorType: deadLetter.errorType,
          failedAdapter: deadLetter.failedAdapter,
          duplicate: !stored,
        },
        'dead letter recorded',
      );
    },
  );
}

/**
 * Where a consumer starts on a partition it takes: the group's committed offset, or the
 * subscriber's own stored position (offsets in the target, `ConsumerOptions.resumeAt`)
 * when that is ahead. The stored position is trusted only when the broker still holds,
 * just before it, the record the target says it applied last: a broker that lost its
 * tail and gave those offsets to other records (JetStream after a power loss) must not
 * make the consumer skip them.
 */
import type { Logger } from '@platform/core';
import type { BrokerRecord, ResumeAt } from './broker.js';

export interface ResumeInput {
  resumeAt: ResumeAt | undefined;
  topic: string;
  partition: number;
  committed: number;
  /** Offset the next published record gets. */
  end: number;
  /** The record at an offset, or undefined when the broker no longer holds it. */
  readAt(offset: number): Promise<BrokerRecord | undefined>;
  logger: Logger;
  groupId: string;
}

export async function resumePosition(input: ResumeInput): Promise<number> {
  const { resumeAt, topic, partition, committed, end, logger, groupId } = input;
  if (!resumeAt) return committed;
  try {
    const stored = await resumeAt(topic, partition);
    if (!stored || stored.offset <= committed) return committed;
    const before = stored.offset <= end ? await input.readAt(stored.offset - 1) : undefined;
    if (!before || !stored.holds(before)) {
      logger.warn(
        { groupId, topic, partition, committed, stored: stored.offset, end },
        "the target's stored position does not match the broker's log; resuming at the committed offset",
      );
      return committed;
    }
    logger.info(
      { groupId, topic, partition, committed, resumeAt: stored.offset },
      "resuming at the target's stored position",
    );
    return stored.offset;
  } catch (error) {
    logger.warn(
      { err: error, groupId, topic, partition },
      "could not read the target's stored position; resuming at the committed offset",
    );
    return committed;
  }
}

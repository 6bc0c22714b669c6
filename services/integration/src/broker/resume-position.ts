/**
 * Where a consumer starts on a partition it takes: the group's committed offset, or the
 * subscriber's own stored position (offsets in the target, `ConsumerOptions.resumeAt`)
 * when that is ahead. The stored position is trusted only when the broker still holds,
 * just before it, the record the target says it applied last: a broker that lost its
 * tail and gave those offsets to other records (JetStream after a power loss) must not
 * make the consumer skip them.
 *
 * Nor may the offsets between the committed offset and the stored position: after a
 * power loss a new record can take a lost offset the consumer had already read past, and
 * the next batch stores a position above it that still ends with a record the broker
 * holds. Re-read, the target applies it (it holds no id for it); resumed past it by a
 * restart in that window, it was never delivered. So the subscriber is asked whether it
 * applied every record the broker holds there (`appliedAll`); a window too long to read
 * at start (`RESUME_CHECK_LIMIT`) is read again instead, and the targets skip by id what
 * they applied.
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

/** Records read at a partition's start to check the window below a stored position. */
export const RESUME_CHECK_LIMIT = 1000;

/** The records the broker holds at offsets `from` up to (not including) `to`, 64 reads at a time. */
async function recordsBetween(
  readAt: ResumeInput['readAt'],
  from: number,
  to: number,
): Promise<BrokerRecord[]> {
  const records: BrokerRecord[] = [];
  for (let at = from; at < to; at += 64) {
    const offsets = Array.from({ length: Math.min(64, to - at) }, (_, i) => at + i);
    for (const record of await Promise.all(offsets.map(readAt))) if (record) records.push(record);
  }
  return records;
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
    if (stored.appliedAll) {
      const window = stored.offset - 1 - committed;
      const below =
        window <= RESUME_CHECK_LIMIT
          ? await recordsBetween(input.readAt, committed, stored.offset - 1)
          : undefined;
      if (!below || !(await stored.appliedAll(below))) {
        logger.warn(
          { groupId, topic, partition, committed, stored: stored.offset, window },
          below
            ? "the broker holds records below the target's stored position that it never applied; resuming at the committed offset"
            : "too many records below the target's stored position to check; resuming at the committed offset",
        );
        return committed;
      }
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

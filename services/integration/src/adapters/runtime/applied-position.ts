/**
 * Offsets in the target (issue 11 item 2): each target stores, with the data and in the
 * same transaction or journal write, the next offset per (consumer group, topic,
 * partition) and the record id applied just before it. On restart the consumer resumes
 * there (`ConsumerOptions.resumeAt`), and a redelivered batch below it is skipped, so
 * broker redelivery is harmless by construction. The record-id gates stay as the second
 * line (records published twice, at two offsets).
 *
 * A stored position is trusted only where it can be checked: a batch below it is
 * skipped when the batch holds, at `nextOffset - 1`, the record the target applied last.
 * A broker that lost records and gave their offsets to others (JetStream after a power
 * loss) then fails the check, and the batch goes through the record-id gate instead.
 *
 * The record is matched by its publish, not only its id (`publishedAt`, the broker's
 * timestamp): after such a loss the outbox publishes the lost records again after the
 * new ones, and one can land at exactly the offset it had, below which new records now
 * sit. Matched by id alone, that batch was covered and its new records skipped by every
 * target (found by the chaos run, seed 22: updates published right after a NATS power
 * loss never applied). A republished record has a later timestamp; a position stored
 * without one (before this check) is not trusted to skip anything.
 */
import type { TargetEvent } from './adapter-target.js';

/** Where a record sits in the log, as the consumer group read it. */
export interface RecordPosition {
  consumerGroup: string;
  topic: string;
  partition: number;
  offset: number;
  /** When the broker stored this publish of the record (ms; `BrokerRecord.timestamp`). */
  publishedAt?: number;
}

/** What a target stores per (consumer group, topic, partition). */
export interface AppliedPosition {
  /** Offset of the next record to apply: everything below it was applied or decided. */
  nextOffset: number;
  /** recordId of the record at `nextOffset - 1`. */
  lastRecordId: string;
  /** When the broker stored that publish of it (`RecordPosition.publishedAt`). */
  lastPublishedAt?: number | undefined;
}

/** Whether a record, as delivered now, is the very publish a stored position ends with. */
export function samePublish(
  stored: AppliedPosition,
  recordId: string,
  publishedAt: number | undefined,
): boolean {
  return (
    recordId === stored.lastRecordId &&
    stored.lastPublishedAt !== undefined &&
    publishedAt === stored.lastPublishedAt
  );
}

/** What these functions read of an event: its record id and where it sits in the log. */
export type PositionedEvent = Pick<TargetEvent, 'position'> & { envelope: { recordId: string } };

/** The (group, topic, partition) slot a position belongs to. */
export type PositionSlot = Omit<RecordPosition, 'offset'>;

export const slotKey = (slot: PositionSlot) =>
  `${slot.consumerGroup}\u0000${slot.topic}\u0000${slot.partition}`;

/**
 * Indexes of the events the stored position of their slot already covers (all events of
 * a batch share one slot: a batch is one partition). Empty unless the batch holds the
 * record the target applied last at the offset just below the stored position.
 */
export function coveredByPosition(
  events: readonly PositionedEvent[],
  stored: AppliedPosition | undefined,
): Set<number> {
  const covered = new Set<number>();
  if (!stored) return covered;
  const last = events.find((event) => event.position?.offset === stored.nextOffset - 1);
  if (!last || !samePublish(stored, last.envelope.recordId, last.position?.publishedAt))
    return covered;
  events.forEach((event, i) => {
    if (event.position && event.position.offset < stored.nextOffset) covered.add(i);
  });
  return covered;
}

/**
 * The positions after the first `appliedCount` events (offset order) took effect: per
 * slot, one past the highest offset among them and that record's id. Empty when none
 * carries a position.
 */
export function positionsAfter(
  events: readonly PositionedEvent[],
  appliedCount = events.length,
): Array<{ slot: PositionSlot; position: AppliedPosition }> {
  const newest = new Map<string, PositionedEvent>();
  for (const event of events.slice(0, appliedCount)) {
    if (!event.position) continue;
    const key = slotKey(event.position);
    const held = newest.get(key);
    if (!held || held.position!.offset < event.position.offset) newest.set(key, event);
  }
  return [...newest.values()].map((event) => {
    const { consumerGroup, topic, partition, offset, publishedAt } = event.position!;
    return {
      slot: { consumerGroup, topic, partition },
      position: {
        nextOffset: offset + 1,
        lastRecordId: event.envelope.recordId,
        ...(publishedAt === undefined ? {} : { lastPublishedAt: publishedAt }),
      },
    };
  });
}

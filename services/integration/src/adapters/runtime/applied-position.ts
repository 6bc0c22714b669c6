/**
 * Offsets in the target (issue 11 item 2): each target stores, with the data and in the
 * same transaction or journal write, the next offset per (consumer group, topic,
 * partition) and the record id applied just before it. On restart the consumer resumes
 * there (`ConsumerOptions.resumeAt`), checked against the broker's record before it.
 *
 * What is a duplicate is decided by record id, not by the position (`alreadyApplied`):
 * a record is a duplicate only when the target holds its id (relational audit, csv
 * journal, webhook delivered ids). A position says where to resume, not what each offset
 * below it holds once a broker lost its tail: after a JetStream power loss new records
 * take the lost offsets, a consumer already past them reads on, and the next batch
 * stores a position above them; a re-read then found the very publish the position ends
 * with and skipped the new records as covered (chaos seed 22: fix 7 for relational, the
 * same check in csv and webhook).
 *
 * Targets whose id store is bounded (issue 11 item 7: csv and webhook drop ids far below
 * their partition's position) say from which offset they keep every id they applied
 * (`idsKeptFrom`); below it the position still vouches. That is sound as long as a
 * broker never gives away offsets that far below what the group already read: a power
 * loss loses the unsynced tail, so the window (10,000 offsets a partition by default)
 * must exceed the records of one partition a broker can lose (README, "Offsets in the
 * target").
 *
 * The resume is matched by the publish a position ends with, not only its id
 * (`publishedAt`, the broker's timestamp): after such a loss the outbox publishes the
 * lost records again after the new ones, and one can land at exactly the offset it had.
 * A republished record has a later timestamp; a position stored without one (before
 * this check) is not trusted to resume at.
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
 * Indexes of the events the target already applied: those whose record id it holds, and
 * those below `idsKeptFrom`, the offset under which it no longer keeps every applied id
 * (undefined: it keeps them all, or holds no position for the events' slot). All events
 * of a batch share one slot (a batch is one partition).
 */
export function alreadyApplied(
  events: readonly PositionedEvent[],
  holds: (recordId: string) => boolean,
  idsKeptFrom: number | undefined,
): Set<number> {
  const applied = new Set<number>();
  events.forEach((event, i) => {
    const offset = event.position?.offset;
    const belowKept = idsKeptFrom !== undefined && offset !== undefined && offset < idsKeptFrom;
    if (belowKept || holds(event.envelope.recordId)) applied.add(i);
  });
  return applied;
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

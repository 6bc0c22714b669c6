/**
 * What an adapter type implements: the target-specific steps of the pipeline (resolve
 * mapping, idempotency gate, transform, write). The runtime does everything else
 * (consume, deserialize, contract filter, classify, retry, dead-letter, commit), so a new
 * adapter type is one object of this shape handed to `buildAdapter`.
 */
import type { AppliedPosition, PositionSlot, RecordPosition } from './applied-position.js';
import type { AttachmentView, LifecycleClass } from './attachment.js';
import type { ClassificationRule } from './failures.js';
import type { LocalEnvelope } from './local-envelope.js';

export interface TargetEvent {
  envelope: LocalEnvelope;
  lifecycle: LifecycleClass;
  attachment: AttachmentView;
  /**
   * Where the record sits in the log. A target that stores offsets (`appliedPosition`)
   * stores it with the write and skips events its stored position already covers.
   */
  position?: RecordPosition;
}

/** `duplicate`: the idempotency gate found the event applied; `stale`: older than the target's state. */
export type WriteOutcome = 'written' | 'duplicate' | 'stale';

export interface AdapterTarget<Mapping = unknown, Row = unknown> {
  readonly type: string;
  readonly description: string;
  /** JSON Schema of an attachment's config; every property carries a `description`. */
  readonly configSchema: Record<string, unknown>;
  /** Rules checked before the shared ones (narrow target-specific failures). */
  readonly classificationRules?: ClassificationRule[];
  /** Checks run once at start (e.g. the shaped table is validated); throwing aborts start. */
  start?(): Promise<void>;
  /** From the attachment (and its contract version) to what the write needs; cached by the runtime. Throws UnmappableDataError. */
  resolveMapping(attachment: AttachmentView): Promise<Mapping>;
  /** True when this event was already applied to this attachment's target. */
  isDuplicate(mapping: Mapping, event: TargetEvent): Promise<boolean>;
  transform(mapping: Mapping, event: TargetEvent): Row;
  write(mapping: Mapping, row: Row, event: TargetEvent): Promise<WriteOutcome>;
  /**
   * Optional fast path: applies events of one partition (in offset order) as one unit —
   * all or nothing — with the idempotency gate inside; one outcome per event, in order.
   * When it throws, the runtime retries the batch (retriable failure) or falls back to
   * `write` event by event to find and dead-letter the records that fail on their own.
   */
  writeBatch?(mapping: Mapping, events: TargetEvent[]): Promise<WriteOutcome[]>;
  /**
   * Offsets in the target: the position stored for a (consumer group, topic, partition)
   * with the data, or undefined when none is stored. The consumer resumes there.
   */
  appliedPosition?(mapping: Mapping, slot: PositionSlot): Promise<AppliedPosition | undefined>;
  /**
   * Which of these events (one slot, offset order) the target applied already, by the
   * rule of `alreadyApplied` (its record id held, or below the offset from which ids are
   * kept). Asked before the consumer resumes at the stored position: only when every
   * record the broker holds below it was applied. Without it, the position is not used.
   */
  appliedOf?(mapping: Mapping, events: TargetEvent[]): Promise<Set<number>>;
  /** Rows of the target for `GET /interns` (the adapter's own view). */
  listInterns?(): Promise<unknown[]>;
  /** Called when an attachment disappears or its mapping is replaced. */
  release?(attachmentId: string): Promise<void>;
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

/**
 * The target with some of its methods replaced (observers wrap write and friends);
 * everything else is the target's own, called on the target itself.
 */
export function overrideTarget<M, R>(
  target: AdapterTarget<M, R>,
  overrides: Partial<AdapterTarget<M, R>>,
): AdapterTarget<M, R> {
  return new Proxy(target, {
    get(real, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof typeof overrides];
      const value: unknown = Reflect.get(real, property, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
}

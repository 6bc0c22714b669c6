/**
 * The broker port: topics with partitions, keyed produce, consumer groups with committed
 * offsets, pause/resume and seek. Two drivers implement it — a log in the SQL database
 * (`sql-log/`, the embedded default) and NATS JetStream (`jetstream/`); `createBroker`
 * picks one from configuration. Nothing outside `create-broker.ts` imports a driver.
 *
 * Delivery is at-least-once: a handler that resolves commits the record's offset; one
 * that throws leaves it uncommitted and the record is delivered again (after a short
 * back-off). Records of one key land in one partition and are handed to a group's
 * handler one at a time in offset order — or, with `subscribeBatches`, as ordered
 * batches of one partition, committed once the whole batch's handler resolved.
 */
export { BrokerUnavailableError, MessageTooLargeError } from './broker-unavailable-error.js';
export { createBroker, type CreateBrokerOptions } from './create-broker.js';

export interface TopicSpec {
  name: string;
  partitions: number;
}

export interface BrokerRecord {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  value: Buffer;
  headers: Record<string, string>;
  timestamp: Date;
}

export interface PublishOptions {
  /**
   * The broker drops a second publish with the same id within its de-duplication window
   * (JetStream: `Nats-Msg-Id`, 2 minutes by default), so a retried publish is stored once.
   * The SQL log appends in one statement and needs none.
   */
  dedupeId?: string;
}

export interface PublishResult {
  topic: string;
  partition: number;
  offset: number;
  /** The broker already held a record with this de-duplication id and stored nothing (JetStream). */
  duplicate?: boolean;
}

/** A record published earlier, as the intake outbox remembers it. */
export interface PublishedRecord {
  offset: number;
  dedupeId: string;
}

/**
 * What an acknowledged publish survives on this engine, read at connect: `powerLoss`
 * false when the engine acknowledges before its write reached the disk (the intake
 * outbox then covers the gap: see `missing`).
 */
export interface BrokerDurability {
  engine: string;
  processCrash: boolean;
  powerLoss: boolean;
  detail: string;
}

export interface ConsumerOptions {
  /** Consumer group id; explicit and unique per adapter (spec rule 3). */
  groupId: string;
  topics: string[];
  /** Where a new group starts. @defaultValue true */
  fromBeginning?: boolean;
  /**
   * Most records read (and held uncommitted) per partition at once. @defaultValue 200 on the
   * SQL log, 500 on JetStream (`DEFAULT_JETSTREAM_MAX_BATCH`)
   */
  maxBatch?: number;
  /**
   * Offsets kept in the target (Kafka Connect's `SinkTask.open` → `context.offset`): asked
   * once per partition when the consumer takes it. When the answer is ahead of the group's
   * committed offset, and the record just before it is the one the target says it applied
   * last (`holds`), the group starts there; otherwise at its committed offset.
   */
  resumeAt?: ResumeAt;
}

/**
 * Where the subscriber's own store says a partition resumes, how to recognise the record
 * before it, and whether it applied every record of a list (those the broker holds
 * between the group's committed offset and there).
 */
export type ResumeAt = (
  topic: string,
  partition: number,
) => Promise<
  | {
      offset: number;
      holds(record: BrokerRecord): boolean;
      appliedAll?(records: BrokerRecord[]): Promise<boolean>;
    }
  | undefined
>;

export interface Assignment {
  topic: string;
  partition: number;
  /** Offset of the next record the group will read (records below it are committed). */
  committedOffset: number;
  /** Offset the next published record will get; `endOffset - committedOffset` is the lag. */
  endOffset: number;
}

export interface Consumer {
  pause(): void;
  resume(): void;
  readonly paused: boolean;
  /** Moves the group's position on one partition; the next record delivered there is `offset`. */
  seek(topic: string, partition: number, offset: number): Promise<void>;
  /** For status and lag; topics that do not exist yet are absent. */
  assignments(): Array<Assignment>;
  /** Adds topics to a running consumer (optional member: both drivers implement it). */
  addTopics?(topics: string[]): Promise<void>;
  stop(): Promise<void>;
}

export type RecordHandler = (record: BrokerRecord) => Promise<void>;
/**
 * Records of one partition, in offset order (at most `maxBatch`). Resolves → all of them
 * committed; throws → none committed, and the same records come again, whole and first.
 */
export type BatchHandler = (batch: BrokerRecord[]) => Promise<void>;

export interface Broker {
  readonly driver: string;
  /** Largest message (value and headers, in bytes) `publish` takes; a larger one throws `MessageTooLargeError`. */
  readonly maxMessageBytes: number;
  /** Idempotent; an existing topic keeps its partition count. */
  ensureTopic(spec: TopicSpec): Promise<void>;
  listTopics(): Promise<TopicSpec[]>;
  /**
   * Throws `BrokerUnavailableError` when the broker cannot take the record, or
   * `MessageTooLargeError` past `maxMessageBytes`; then nothing is published.
   */
  publish(
    topic: string,
    key: string,
    value: Buffer | string,
    headers?: Record<string, string>,
    options?: PublishOptions,
  ): Promise<PublishResult>;
  /** handler resolves → offset committed; throws → not committed, delivered again. */
  subscribe(options: ConsumerOptions, handler: RecordHandler): Promise<Consumer>;
  /** handler resolves → the whole batch committed; throws → none of it, the batch delivered again. */
  subscribeBatches(options: ConsumerOptions, handler: BatchHandler): Promise<Consumer>;
  /**
   * Of records published to one partition, the de-duplication ids the broker no longer
   * holds at their offset (lost in a power loss, purged, deleted, or their offset taken
   * by another record after the broker lost its tail).
   */
  missing(topic: string, partition: number, published: PublishedRecord[]): Promise<Set<string>>;
  /**
   * True when the broker can vouch, without reading records, that every record it
   * acknowledged at offsets `fromOffset`..`toOffset` of a partition is still held as
   * published (none lost, deleted or its offset given to another record); false when it
   * cannot tell that cheaply — the caller then asks `missing` record by record. Lets the
   * outbox reconciler check a window of many thousand events with one question.
   */
  holdsRange(
    topic: string,
    partition: number,
    fromOffset: number,
    toOffset: number,
  ): Promise<boolean>;
  durability(): BrokerDurability;
  /**
   * Applies the topics' retention now (it also runs on its own); resolves with the records
   * dropped. The SQL log prunes itself; JetStream's server enforces the limits, so 0.
   */
  applyRetention?(): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

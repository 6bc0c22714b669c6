/**
 * One consumer-group member on the SQL log. A single loop discovers the group's
 * partitions (topics may appear later), refreshes end offsets, and — unless paused —
 * reads a range of every partition with records from its committed offset, hands each
 * partition's range to the delivery handler in offset order, and commits once per range,
 * up to what the handler reports handled. Partitions are processed concurrently; what was
 * not handled is delivered again after a delay, before anything later of its partition.
 *
 * Statements per pass, whatever the number of partitions: one refresh, which also writes
 * the commits of the previous pass (so a commit reaches the database before anything
 * later is read, and a crash re-delivers at most the last range of each partition, as
 * when each commit was its own statement), and one read of every ready partition. On
 * PGlite, whose one session every role shares, a read and a commit per partition per pass
 * (with the refreshes) were 42 % of the statements of the single-POST bench (27 Nov 2026).
 */
import type { Logger, SqlDatabase, Unlisten } from '@platform/core';
import { assignmentOf } from '../assignment-of.js';
import type { DeliveryHandler } from '../batch-delivery.js';
import type { Assignment, BrokerRecord, Consumer, ConsumerOptions } from '../broker.js';
import { resumePosition } from '../resume-position.js';
import { WAKE_CHANNEL } from './schema.js';

interface PartitionState extends Assignment {
  /** Bumped by seek so an in-flight batch stops. */
  generation: number;
  retryAt: number;
}

export interface SqlLogConsumerOptions {
  db: SqlDatabase;
  logger: Logger;
  options: ConsumerOptions;
  handler: DeliveryHandler;
  pollIntervalMs: number;
  batchSize: number;
  lingerMs: number;
  redeliveryDelayMs: number;
  onStop: (consumer: SqlLogConsumer) => void;
}

interface MessageRow {
  offset: string | number;
  key: string;
  /** The value in base64 (`VALUE_COLUMN`). */
  value: string;
  headers: Record<string, string>;
  created_at: Date | string;
}

const slot = (topic: string, partition: number) => `${topic}\u0000${partition}`;

interface Commit {
  topic: string;
  partition: number;
  offset: number;
}

const UPSERT_COMMITS = `INSERT INTO broker_group_offsets (group_id, topic, partition, committed_offset)
  SELECT $1, c.topic, c.partition, c.committed_offset
  FROM unnest($2::text[], $3::int[], $4::bigint[]) AS c (topic, partition, committed_offset)
  ON CONFLICT (group_id, topic, partition)
  DO UPDATE SET committed_offset = EXCLUDED.committed_offset, updated_at = now()`;

/** The partitions of the topics, after writing the pending commits (a no-op when there are none). */
const REFRESH_SQL = `WITH committed AS (${UPSERT_COMMITS})
  SELECT topic, partition, next_offset FROM broker_partitions WHERE topic = ANY($5::text[])`;

/**
 * The value as base64 text, decoded here (natively, by `Buffer.from`): PGlite reads a
 * bytea column's hex text into bytes one `parseInt` a byte, and that reading was a third of
 * the embedded default's CPU in the soak (28 Nov 2026). Base64 is also shorter on the wire
 * than hex, for PostgreSQL too.
 */
const VALUE_COLUMN = `encode(value, 'base64') AS value`;

/** Up to $4 records of each partition from its offset, partition by partition in offset order. */
const READ_SQL = `SELECT r.i, m."offset", m.key, m.value, m.headers, m.created_at
  FROM unnest($1::text[], $2::int[], $3::bigint[]) WITH ORDINALITY AS r (topic, partition, from_offset, i)
  CROSS JOIN LATERAL (
    SELECT bm."offset", bm.key, ${VALUE_COLUMN}, bm.headers, bm.created_at FROM broker_messages bm
    WHERE bm.topic = r.topic AND bm.partition = r.partition AND bm."offset" >= r.from_offset
    ORDER BY bm."offset" LIMIT $4
  ) m
  ORDER BY r.i, m."offset"`;

const toRecord = (topic: string, partition: number, row: MessageRow): BrokerRecord => ({
  topic,
  partition,
  offset: Number(row.offset),
  key: row.key,
  value: Buffer.from(row.value, 'base64'),
  headers: row.headers,
  timestamp: new Date(row.created_at),
});

export class SqlLogConsumer implements Consumer {
  private readonly topics: Set<string>;
  private readonly partitions = new Map<string, PartitionState>();
  private isPaused = false;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private unlisten: Unlisten | undefined;
  /** Positions handled but not yet written: the next refresh (or stop) writes them. */
  private readonly pendingCommits = new Map<string, Commit>();

  constructor(private readonly deps: SqlLogConsumerOptions) {
    this.topics = new Set(deps.options.topics);
  }

  get paused(): boolean {
    return this.isPaused;
  }

  async start(): Promise<void> {
    if (this.deps.db.supportsListenNotify) {
      this.unlisten = await this.deps.db.listen(WAKE_CHANNEL, (topic) => {
        if (this.topics.has(topic)) this.wake?.();
      });
    }
    await this.refresh();
    this.loop = this.run();
  }

  pause(): void {
    this.isPaused = true;
  }

  resume(): void {
    this.isPaused = false;
    this.wake?.();
  }

  async addTopics(topics: string[]): Promise<void> {
    for (const topic of topics) this.topics.add(topic);
    this.wake?.();
  }

  async seek(topic: string, partition: number, offset: number): Promise<void> {
    // A pending commit of an earlier range must not overwrite the position sought.
    this.pendingCommits.delete(slot(topic, partition));
    await this.commit(topic, partition, offset);
    const state = this.partitions.get(slot(topic, partition));
    if (state) {
      state.committedOffset = offset;
      state.generation += 1;
      state.retryAt = 0;
    }
    this.wake?.();
  }

  assignments(): Assignment[] {
    return [...this.partitions.values()].map(assignmentOf);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.writeCommits().catch((error: unknown) =>
      this.deps.logger.warn(
        { err: error, groupId: this.deps.options.groupId },
        'commit at stop failed; the last records will be delivered again',
      ),
    );
    await this.unlisten?.().catch(() => undefined);
    this.deps.onStop(this);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let handled = 0;
      try {
        await this.refresh();
        if (!this.isPaused) handled = await this.drainAll();
      } catch (error) {
        this.deps.logger.warn(
          { err: error, groupId: this.deps.options.groupId },
          'broker poll failed',
        );
      }
      if (this.stopped) break;
      if (handled === 0) await this.sleep(this.deps.pollIntervalMs);
      // Caught up with a trickle: linger briefly so a stream of single appends is read in
      // batches instead of one poll per record (PGlite has one session for everyone).
      else if (handled < this.batchSize)
        await new Promise((resolve) => setTimeout(resolve, this.deps.lingerMs));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** The commits pending now, as statement parameters (topics, partitions, offsets). */
  private commitParams(commits: Commit[]): [string[], number[], number[]] {
    return [
      commits.map((c) => c.topic),
      commits.map((c) => c.partition),
      commits.map((c) => c.offset),
    ];
  }

  /** Forgets the pending commits a statement wrote, unless a later one replaced them meanwhile. */
  private written(commits: Commit[]): void {
    for (const commit of commits) {
      const key = slot(commit.topic, commit.partition);
      if (this.pendingCommits.get(key) === commit) this.pendingCommits.delete(key);
    }
  }

  private async writeCommits(): Promise<void> {
    const commits = [...this.pendingCommits.values()];
    if (commits.length === 0) return;
    await this.deps.db.query(UPSERT_COMMITS, [
      this.deps.options.groupId,
      ...this.commitParams(commits),
    ]);
    this.written(commits);
  }

  /**
   * Writes the pending commits, discovers partitions of subscribed topics and refreshes
   * their end offsets: one statement.
   */
  private async refresh(): Promise<void> {
    const topics = [...this.topics];
    const { db, options } = this.deps;
    const commits = [...this.pendingCommits.values()];
    const { rows } = await db.query<{
      topic: string;
      partition: number;
      next_offset: string | number;
    }>(REFRESH_SQL, [options.groupId, ...this.commitParams(commits), topics]);
    this.written(commits);
    const fresh = rows.filter((row) => !this.partitions.has(slot(row.topic, row.partition)));
    if (fresh.length > 0) {
      const committed = await db.query<{
        topic: string;
        partition: number;
        committed_offset: string | number;
      }>(
        'SELECT topic, partition, committed_offset FROM broker_group_offsets WHERE group_id = $1 AND topic = ANY($2::text[])',
        [options.groupId, topics],
      );
      const known = new Map(
        committed.rows.map((row) => [slot(row.topic, row.partition), Number(row.committed_offset)]),
      );
      for (const row of fresh) {
        const end = Number(row.next_offset);
        const committedAt = known.get(slot(row.topic, row.partition));
        let start = committedAt ?? (options.fromBeginning === false ? end : 0);
        start = await resumePosition({
          resumeAt: options.resumeAt,
          topic: row.topic,
          partition: row.partition,
          committed: start,
          end,
          readAt: (offset) => this.readAt(row.topic, row.partition, offset),
          logger: this.deps.logger,
          groupId: options.groupId,
        });
        if (start !== committedAt) await this.commit(row.topic, row.partition, start);
        this.partitions.set(slot(row.topic, row.partition), {
          topic: row.topic,
          partition: row.partition,
          committedOffset: start,
          endOffset: end,
          generation: 0,
          retryAt: 0,
        });
      }
    }
    for (const row of rows) {
      const state = this.partitions.get(slot(row.topic, row.partition));
      if (state) state.endOffset = Number(row.next_offset);
    }
  }

  private async readAt(
    topic: string,
    partition: number,
    offset: number,
  ): Promise<BrokerRecord | undefined> {
    const { rows } = await this.deps.db.query<MessageRow>(
      `SELECT "offset", key, ${VALUE_COLUMN}, headers, created_at FROM broker_messages
       WHERE topic = $1 AND partition = $2 AND "offset" = $3`,
      [topic, partition, offset],
    );
    return rows[0] && toRecord(topic, partition, rows[0]);
  }

  /**
   * Reads a range of every partition with records (one statement) and hands each to the
   * handler, partitions concurrently; returns how many records were handled.
   */
  private async drainAll(): Promise<number> {
    const now = Date.now();
    const ready = [...this.partitions.values()].filter(
      (state) => state.committedOffset < state.endOffset && now >= state.retryAt,
    );
    if (ready.length === 0) return 0;
    const generations = ready.map((state) => state.generation);
    const { rows } = await this.deps.db.query<MessageRow & { i: string | number }>(READ_SQL, [
      ready.map((state) => state.topic),
      ready.map((state) => state.partition),
      ready.map((state) => state.committedOffset),
      this.batchSize,
    ]);
    if (this.stopped || this.isPaused) return 0;
    const ranges: MessageRow[][] = ready.map(() => []);
    for (const row of rows) ranges[Number(row.i) - 1]!.push(row);
    // Settled, not Promise.all: a partition that failed must not start the next poll
    // while another partition's batch is still in its handler (it would be read again).
    const results = await Promise.allSettled(
      ready.map((state, n) => this.drain(state, generations[n]!, ranges[n]!)),
    );
    let handled = 0;
    for (const result of results) if (result.status === 'fulfilled') handled += result.value;
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return handled;
  }

  /** Hands one partition's range to the handler; returns how many records it handled. */
  private async drain(
    state: PartitionState,
    generation: number,
    rows: MessageRow[],
  ): Promise<number> {
    if (rows.length === 0 || state.generation !== generation) return 0;
    const batch = rows.map((row) => toRecord(state.topic, state.partition, row));
    const interrupted = () => this.stopped || this.isPaused || state.generation !== generation;
    const { handled, error } = await this.deps.handler(batch, interrupted);
    if (error !== undefined) {
      const failed = batch[handled]!;
      this.deps.logger.warn(
        {
          err: error,
          groupId: this.deps.options.groupId,
          topic: failed.topic,
          partition: failed.partition,
          offset: failed.offset,
        },
        'handler failed; records will be delivered again',
      );
      state.retryAt = Date.now() + this.deps.redeliveryDelayMs;
    }
    // Offsets are committed once per batch, and only up to what was handled, by the next
    // pass's refresh (before its read) or at stop: a crash re-delivers at most one batch.
    if (handled === 0 || state.generation !== generation) return 0;
    const next = batch[handled - 1]!.offset + 1;
    this.pendingCommits.set(slot(state.topic, state.partition), {
      topic: state.topic,
      partition: state.partition,
      offset: next,
    });
    state.committedOffset = next;
    return handled;
  }

  private get batchSize(): number {
    return this.deps.options.maxBatch ?? this.deps.batchSize;
  }

  private async commit(topic: string, partition: number, offset: number): Promise<void> {
    await this.deps.db.query(
      `INSERT INTO broker_group_offsets (group_id, topic, partition, committed_offset) VALUES ($1, $2, $3, $4)
       ON CONFLICT (group_id, topic, partition) DO UPDATE SET committed_offset = EXCLUDED.committed_offset, updated_at = now()`,
      [this.deps.options.groupId, topic, partition, offset],
    );
  }
}

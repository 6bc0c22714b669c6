/**
 * The broker as a log in the SQL database (PGlite or PostgreSQL through core's
 * `SqlDatabase`). Publishes in flight together are appended by one statement that bumps
 * each partition's next offset and appends the records in call order, so it is atomic and
 * producers of one partition are serialised by the partition row's lock. Consumers poll their partitions and are woken early by a
 * NOTIFY on every append.
 *
 * Scale-out note: partitions are not balanced between several instances of one group;
 * one instance per group reads all of the group's partitions (scale out on JetStream).
 */
import { MicroBatcher, type Logger, type SqlDatabase } from '@platform/core';
import {
  DEFAULT_MAX_BATCH,
  oneByOne,
  wholeBatch,
  type DeliveryHandler,
} from '../batch-delivery.js';
import type { Broker, ConsumerOptions, PublishResult, TopicSpec } from '../broker.js';
import {
  BrokerUnavailableError,
  MessageTooLargeError,
  UnknownTopicError,
} from '../broker-unavailable-error.js';
import { partitionFor } from '../partitioner.js';
import type { RetentionEntry } from '../retention.js';
import { pruneSqlLog } from './prune.js';
import { ensureBrokerSchema, WAKE_CHANNEL } from './schema.js';
import { SqlLogConsumer } from './sql-log-consumer.js';

export interface SqlLogBrokerOptions {
  db: SqlDatabase;
  logger: Logger;
  /** Fallback poll interval when no NOTIFY arrives. @defaultValue 500 */
  pollIntervalMs?: number;
  /** Records read per partition per poll. @defaultValue 200 */
  batchSize?: number;
  /** Pause after a poll that caught up, so a trickle is read in batches. @defaultValue 10 */
  lingerMs?: number;
  /** Wait before a record whose handler threw is delivered again. @defaultValue 250 */
  redeliveryDelayMs?: number;
  /**
   * Largest message (value and headers as JSON, bytes), like NATS's `max_payload`: one
   * record never becomes a row that slows every poll of its partition. @defaultValue 1048576
   */
  maxMessageBytes?: number;
  /** Retention per topic (`BROKER_RETENTION`, see `retention.ts`). @defaultValue none: the log is kept */
  retention?: RetentionEntry[];
  /** How often retention is applied. @defaultValue 60000 */
  retentionIntervalMs?: number;
}

/**
 * One statement, one round trip, for every publish in flight (call order kept by the
 * ordinality): lock the partitions in a fixed order (two producers never deadlock), bump
 * each next offset by its count, append, and wake consumers once per topic (NOTIFY is sent
 * at commit). Values travel as hex, so both drivers pass them as plain text arrays.
 */
const APPEND_SQL = `WITH input AS (
    SELECT i, topic, partition, key, decode(value_hex, 'hex') AS value, headers::jsonb AS headers, dedupe_id
    FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[])
      WITH ORDINALITY AS u (topic, partition, key, value_hex, headers, dedupe_id, i)
  ), counts AS (
    SELECT topic, partition, count(*) AS n FROM input GROUP BY topic, partition
  ), locked AS MATERIALIZED (
    SELECT bp.topic, bp.partition FROM broker_partitions bp
    JOIN counts c ON c.topic = bp.topic AND c.partition = bp.partition
    ORDER BY bp.topic, bp.partition FOR UPDATE OF bp
  ), bumped AS (
    UPDATE broker_partitions bp SET next_offset = bp.next_offset + c.n
    FROM locked l JOIN counts c ON c.topic = l.topic AND c.partition = l.partition
    WHERE bp.topic = l.topic AND bp.partition = l.partition
    RETURNING bp.topic, bp.partition, bp.next_offset - c.n AS first
  ), numbered AS (
    SELECT input.*, b.first + row_number() OVER (PARTITION BY input.topic, input.partition ORDER BY input.i) - 1 AS off
    FROM input JOIN bumped b ON b.topic = input.topic AND b.partition = input.partition
  ), appended AS (
    INSERT INTO broker_messages (topic, partition, "offset", key, value, headers, dedupe_id)
    SELECT topic, partition, off, key, value, headers, dedupe_id FROM numbered
    RETURNING topic
  )
  SELECT n.i, n.off AS "offset",
    (SELECT count(pg_notify($7, t.topic)) FROM (SELECT DISTINCT topic FROM appended) t) AS woken
  FROM numbered n ORDER BY n.i`;

/** The same for one publish alone (a trickle): a plainer statement, cheaper to plan and run. */
const APPEND_ONE_SQL = `WITH p AS (
    UPDATE broker_partitions SET next_offset = next_offset + 1
    WHERE topic = $1 AND partition = $2
    RETURNING next_offset - 1 AS off
  ), appended AS (
    INSERT INTO broker_messages (topic, partition, "offset", key, value, headers, dedupe_id)
    SELECT $1, $2, off, $3, $4, $5::jsonb, $7 FROM p
    RETURNING "offset"
  )
  SELECT "offset", pg_notify($6, $1) FROM appended`;

interface Append {
  topic: string;
  partition: number;
  key: string;
  value: Buffer;
  headers: string;
  dedupeId: string | null;
}

/** Appends a flush of publishes; the offset of each, or undefined where its partition is unknown. */
async function appendAll(db: SqlDatabase, appends: Append[]): Promise<Array<number | undefined>> {
  if (appends.length === 1) {
    const [a] = appends as [Append];
    const { rows } = await db.query<{ offset: string | number }>(APPEND_ONE_SQL, [
      a.topic,
      a.partition,
      a.key,
      a.value,
      a.headers,
      WAKE_CHANNEL,
      a.dedupeId,
    ]);
    return [rows[0] ? Number(rows[0].offset) : undefined];
  }
  const { rows } = await db.query<{ i: string | number; offset: string | number }>(APPEND_SQL, [
    appends.map((a) => a.topic),
    appends.map((a) => a.partition),
    appends.map((a) => a.key),
    appends.map((a) => a.value.toString('hex')),
    appends.map((a) => a.headers),
    appends.map((a) => a.dedupeId),
    WAKE_CHANNEL,
  ]);
  const offsets: Array<number | undefined> = new Array(appends.length);
  for (const row of rows) offsets[Number(row.i) - 1] = Number(row.offset);
  return offsets;
}

/** At most this many bytes of values in one append statement (a larger record goes alone). */
const APPEND_BYTES = 4 * 1024 * 1024;

export async function createSqlLogBroker(options: SqlLogBrokerOptions): Promise<Broker> {
  const { db, logger } = options;
  await ensureBrokerSchema(db);
  const partitionCounts = new Map<string, Promise<number>>();
  const consumers = new Set<SqlLogConsumer>();
  // Concurrent publishes (a batch request's, many clients') share one statement: on PGlite,
  // whose one session every role shares, a statement per record was the intake's main cost.
  const appender = new MicroBatcher((appends: Append[]) => appendAll(db, appends), 1000, {
    of: (append) => append.value.length + append.headers.length,
    max: APPEND_BYTES,
  });

  // The lookup itself is shared: publishes made at once all wait on one query and so go on
  // in call order (into one append), not in the order a pool's connections answer.
  const partitionsOf = (topic: string): Promise<number> => {
    let known = partitionCounts.get(topic);
    if (!known) {
      known = db
        .query<{ partitions: number }>('SELECT partitions FROM broker_topics WHERE name = $1', [
          topic,
        ])
        .then(({ rows }) => {
          if (!rows[0]) throw new UnknownTopicError(topic);
          return Number(rows[0].partitions);
        });
      partitionCounts.set(topic, known);
      known.catch(() => partitionCounts.delete(topic));
    }
    return known;
  };

  const subscribe = async (consumerOptions: ConsumerOptions, handler: DeliveryHandler) => {
    const consumer = new SqlLogConsumer({
      db,
      logger,
      options: consumerOptions,
      handler,
      pollIntervalMs: options.pollIntervalMs ?? 500,
      batchSize: options.batchSize ?? DEFAULT_MAX_BATCH,
      lingerMs: options.lingerMs ?? 10,
      redeliveryDelayMs: options.redeliveryDelayMs ?? 250,
      onStop: (self) => consumers.delete(self),
    });
    consumers.add(consumer);
    await consumer.start();
    return consumer;
  };

  const maxMessageBytes = options.maxMessageBytes ?? 1024 * 1024;
  const retention = options.retention ?? [];
  let pruning: Promise<number> | undefined;
  const applyRetention = () => {
    pruning ??= pruneSqlLog(db, retention).finally(() => (pruning = undefined));
    return pruning;
  };
  const retentionTimer =
    retention.length > 0
      ? setInterval(
          () =>
            void applyRetention().catch((error: unknown) =>
              logger.warn({ err: error }, 'broker retention failed; trying again later'),
            ),
          options.retentionIntervalMs ?? 60_000,
        ).unref()
      : undefined;

  return {
    driver: 'sql-log',
    maxMessageBytes,
    async ensureTopic(spec: TopicSpec) {
      if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
        throw new RangeError(`partitions must be a positive integer, got ${spec.partitions}`);
      }
      await db.transaction(async (tx) => {
        await tx.query(
          'INSERT INTO broker_topics (name, partitions) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
          [spec.name, spec.partitions],
        );
        const { rows } = await tx.query<{ partitions: number }>(
          'SELECT partitions FROM broker_topics WHERE name = $1',
          [spec.name],
        );
        const partitions = Number(rows[0]!.partitions);
        await tx.query(
          `INSERT INTO broker_partitions (topic, partition)
           SELECT $1, g FROM generate_series(0, $2::int - 1) AS g
           ON CONFLICT DO NOTHING`,
          [spec.name, partitions],
        );
      });
    },
    async listTopics() {
      const { rows } = await db.query<{ name: string; partitions: number }>(
        'SELECT name, partitions FROM broker_topics ORDER BY name',
      );
      return rows.map((row) => ({ name: row.name, partitions: Number(row.partitions) }));
    },
    async publish(topic, key, value, headers = {}, publishOptions = {}): Promise<PublishResult> {
      try {
        const partition = partitionFor(key, await partitionsOf(topic));
        const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
        const headerJson = JSON.stringify(headers);
        const size = bytes.length + Buffer.byteLength(headerJson);
        if (size > maxMessageBytes) throw new MessageTooLargeError(size, maxMessageBytes);
        const [offset] = await appender.run([
          {
            topic,
            partition,
            key,
            value: bytes,
            headers: headerJson,
            dedupeId: publishOptions.dedupeId ?? null,
          },
        ]);
        if (offset === undefined) throw new UnknownTopicError(topic);
        return { topic, partition, offset };
      } catch (error) {
        if (error instanceof UnknownTopicError || error instanceof MessageTooLargeError)
          throw error;
        throw new BrokerUnavailableError(`broker unavailable: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
    subscribe: (consumerOptions, handler) => subscribe(consumerOptions, oneByOne(handler)),
    subscribeBatches: (consumerOptions, handler) => subscribe(consumerOptions, wholeBatch(handler)),
    async missing(topic, partition, published) {
      if (published.length === 0) return new Set<string>();
      const { rows } = await db.query<{ offset: string | number; dedupe_id: string | null }>(
        `SELECT "offset", dedupe_id FROM broker_messages
         WHERE topic = $1 AND partition = $2 AND "offset" = ANY($3::bigint[])`,
        [topic, partition, published.map((p) => p.offset)],
      );
      const held = new Map(rows.map((row) => [Number(row.offset), row.dedupe_id]));
      return new Set(
        published
          .filter((p) => {
            const id = held.get(p.offset);
            return id === undefined || (id !== null && id !== p.dedupeId);
          })
          .map((p) => p.dedupeId),
      );
    },
    // Offsets are dense (the next offset is bumped in the statement that appends) and never
    // given twice (a lost tail loses the bump with it), so a full count is the proof.
    async holdsRange(topic, partition, fromOffset, toOffset) {
      const { rows } = await db.query<{ n: string | number }>(
        `SELECT count(*) AS n FROM broker_messages
         WHERE topic = $1 AND partition = $2 AND "offset" BETWEEN $3 AND $4`,
        [topic, partition, fromOffset, toOffset],
      );
      return Number(rows[0]?.n ?? 0) === toOffset - fromOffset + 1;
    },
    durability: () => ({
      engine: `sql-log on ${db.engine}`,
      processCrash: true,
      powerLoss: db.engine === 'postgres',
      detail:
        db.engine === 'postgres'
          ? 'an acknowledged publish is a committed PostgreSQL transaction (fsync at commit)'
          : 'an acknowledged publish is a committed PGlite transaction; PGlite does not fsync each commit, so a power loss may drop the last ones (the intake outbox sits in the same database and loses them with them)',
    }),
    async ping() {
      try {
        await db.ping();
      } catch (error) {
        throw new BrokerUnavailableError(`broker unavailable: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
    applyRetention,
    async close() {
      clearInterval(retentionTimer);
      await pruning?.catch(() => undefined);
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
    },
  };
}

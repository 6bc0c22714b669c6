/**
 * The broker on NATS JetStream (see `naming.ts` for the stream layout). Publishing waits
 * for the stream's acknowledgement, bounded by a timeout; a failure is a
 * `BrokerUnavailableError`. Consumers are durable pull consumers with explicit ack.
 */
import type { Logger } from '@platform/core';
import {
  connect,
  DeliverPolicy,
  DiscardPolicy,
  ErrorCode,
  nanos,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type NatsConnection,
} from 'nats';
import { oneByOne, wholeBatch, type DeliveryHandler } from '../batch-delivery.js';
import type {
  Broker,
  ConsumerOptions,
  PublishedRecord,
  PublishResult,
  TopicSpec,
} from '../broker.js';
import {
  BrokerUnavailableError,
  MessageTooLargeError,
  UnknownTopicError,
} from '../broker-unavailable-error.js';
import { partitionFor } from '../partitioner.js';
import { retentionFor, type RetentionEntry } from '../retention.js';
import { JetStreamConsumer } from './jetstream-consumer.js';
import { keyHeader } from './message-key.js';
import {
  assertTopicName,
  MSG_ID_HEADER,
  streamName,
  subjectFor,
  type StreamDescription,
} from './naming.js';
import { InboxRequests } from './inbox-requests.js';
import { PublishAcks } from './publish-acks.js';
import { publishHeaders } from './publish-headers.js';
import { readDurability } from './server-durability.js';
import { readMessageIds } from './stream-ids.js';

export interface JetStreamBrokerOptions {
  url: string;
  logger: Logger;
  /** Prefix of stream names and subjects (tests use a unique one). @defaultValue "BRK" */
  prefix?: string;
  /** @defaultValue 5000 */
  connectTimeoutMs?: number;
  /** Longest wait for a publish acknowledgement. @defaultValue 5000 */
  publishTimeoutMs?: number;
  /** Wait before a record whose handler threw is delivered again. @defaultValue 250 */
  redeliveryDelayMs?: number;
  /**
   * The longest wait for the no-wait pull that takes the rest of a batch after its first
   * record (a server that died mid-pull never answers). Tests set it long to show that
   * no batch waits for it. @defaultValue 1000
   */
  batchFetchExpiresMs?: number;
  /**
   * How long a worker waits, after a batch's first record, for more of its partition
   * before handing the batch over (until `maxBatch` fill it; Kafka's
   * `fetch.max.wait.ms`). 0: only what is there at once. @defaultValue 50
   */
  lingerMs?: number;
  /** nats-server's monitoring URL (`http://host:8222`): where its sync setting is read. */
  monitorUrl?: string | undefined;
  /** Retention per topic (`BROKER_RETENTION`, see `retention.ts`): each partition stream's max_age and max_bytes. @defaultValue none */
  retention?: RetentionEntry[];
}

/** NATS server default, used until the server's INFO is known. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** From this many records in doubt `missing` scans their range instead of asking each. */
const BULK_READ_FROM = 64;

/** The client's default API prefix: `jetstream()` and `jetstreamManager()` are made here without a domain. */
const JS_API_PREFIX = '$JS.API';

export async function createJetStreamBroker(options: JetStreamBrokerOptions): Promise<Broker> {
  const prefix = options.prefix ?? 'BRK';
  const publishTimeout = options.publishTimeoutMs ?? 5000;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: options.url,
      timeout: options.connectTimeoutMs ?? 5000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      name: 'integration-broker',
      // Every request (each publish, pull and ackAck) otherwise builds an Error up front
      // for its stack, in case it times out: about 2% of the CPU of a loaded platform.
      noAsyncTraces: true,
    });
  } catch (error) {
    throw new BrokerUnavailableError(`NATS unreachable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // A server with no JetStream at all is a configuration error: the start exits with it.
  // One that has it but whose JetStream API has no responders yet (restarted a moment
  // ago, still recovering its streams) is unavailable: the start waits for it.
  if (!nc.info?.jetstream) {
    await nc.close().catch(() => undefined);
    throw new Error(
      `NATS at ${options.url} has no JetStream: start nats-server with -js (or a jetstream block in its configuration)`,
    );
  }
  let jsm: JetStreamManager;
  try {
    jsm = await nc.jetstreamManager({ timeout: publishTimeout });
  } catch (error) {
    await nc.close().catch(() => undefined);
    if ((error as { code?: unknown }).code === ErrorCode.JetStreamNotEnabled)
      throw new BrokerUnavailableError('NATS JetStream is not ready (503 no responders)', {
        cause: error,
      });
    throw error;
  }
  const durability = await readDurability(nc, options.monitorUrl);
  (durability.powerLoss ? options.logger.info : options.logger.warn).call(
    options.logger,
    { broker: 'jetstream', ...durability },
    durability.powerLoss
      ? 'JetStream: an acknowledged publish survives a power loss'
      : 'JetStream: an acknowledged publish may be lost in a power loss; the intake outbox publishes such records again',
  );
  const consumers = new Set<JetStreamConsumer>();
  // Partitions whose records have been checked one by one since the last (re)connect: a
  // server that restarted may have lost its unsynced tail and handed its offsets to others.
  const verified = new Set<string>();
  // While disconnected the client would buffer a publish and send it on reconnect, after
  // its caller was told it failed: refuse at once instead (nothing sent, nothing in doubt).
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') connected = false;
      if (status.type === 'reconnect') {
        connected = true;
        verified.clear();
        for (const consumer of consumers) consumer.distrustAcks();
      }
    }
  })().catch(() => undefined);
  const js = nc.jetstream({ timeout: publishTimeout });
  // One inbox answers every publish, consumer ack and consumer-info request of the broker.
  const requests = new InboxRequests(nc, publishTimeout);
  const acks = new PublishAcks(requests);
  const partitionCounts = new Map<string, number>();

  const partitionsOf = async (topic: string): Promise<number> => {
    const cached = partitionCounts.get(topic);
    if (cached !== undefined) return cached;
    try {
      const info = await jsm.streams.info(streamName(prefix, topic, 0));
      const described = JSON.parse(info.config.description ?? '{}') as StreamDescription;
      partitionCounts.set(topic, described.partitions);
      return described.partitions;
    } catch (error) {
      if (/stream not found/i.test((error as Error).message)) throw new UnknownTopicError(topic);
      throw error;
    }
  };

  /**
   * After the server lost records, consumers whose stored position is past the first lost
   * one (their state file survived, the records did not; or new records took the lost
   * offsets) would skip what is published there now: each is re-created to start at the
   * first lost offset. Targets apply by record id and revision, so what they see again is
   * harmless.
   */
  const rewindConsumers = async (
    stream: string,
    lastSeq: number,
    published: PublishedRecord[],
    lost: Set<string>,
  ): Promise<void> => {
    // The records published again go after the stream's end: start there at the latest.
    const from = Math.min(
      lastSeq + 1,
      ...published.filter((p) => lost.has(p.dedupeId)).map((p) => p.offset + 1),
    );
    for await (const info of jsm.consumers.list(stream)) {
      if (info.delivered.stream_seq < from || !info.config.durable_name) continue;
      options.logger.warn(
        { stream, consumer: info.config.durable_name, from, delivered: info.delivered.stream_seq },
        'consumer is past records the server lost; re-created to read them',
      );
      // This process's worker on that durable drops its batch first: an ack of it would
      // land on the new durable and acknowledge the records it is made to deliver again.
      for (const consumer of consumers) consumer.forgetDurable(stream, info.config.durable_name);
      await jsm.consumers.delete(stream, info.config.durable_name);
      await jsm.consumers.add(stream, {
        ...info.config,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: from,
      });
    }
  };

  const subscribe = async (consumerOptions: ConsumerOptions, handler: DeliveryHandler) => {
    const consumer = new JetStreamConsumer({
      nc,
      js,
      jsm,
      apiPrefix: JS_API_PREFIX,
      requests,
      prefix,
      logger: options.logger,
      options: consumerOptions,
      handler,
      redeliveryDelayMs: options.redeliveryDelayMs ?? 250,
      ...(options.batchFetchExpiresMs === undefined
        ? {}
        : { batchFetchExpiresMs: options.batchFetchExpiresMs }),
      ...(options.lingerMs === undefined ? {} : { lingerMs: options.lingerMs }),
      partitionsOf: async (topic) => {
        try {
          return await partitionsOf(topic);
        } catch (error) {
          if (error instanceof UnknownTopicError) return undefined;
          throw error;
        }
      },
      onStop: (self) => consumers.delete(self),
    });
    consumers.add(consumer);
    await consumer.start();
    return consumer;
  };

  /** A topic's retention as stream limits: each partition stream keeps its share of the bytes (0 and -1: none). */
  const streamLimits = (topic: string, partitions: number) => {
    const { maxAgeMs, maxBytes } = retentionFor(options.retention ?? [], topic);
    return {
      max_age: maxAgeMs === undefined ? 0 : nanos(maxAgeMs),
      max_bytes: maxBytes === undefined ? -1 : Math.max(1, Math.floor(maxBytes / partitions)),
    };
  };

  /** The server's `max_payload` (headers and data together), as it announced on connect. */
  const maxPayload = () => nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;

  return {
    driver: 'jetstream',
    get maxMessageBytes() {
      return maxPayload();
    },
    async ensureTopic(spec: TopicSpec) {
      assertTopicName(spec.name);
      if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
        throw new RangeError(`partitions must be a positive integer, got ${spec.partitions}`);
      }
      let partitions = spec.partitions;
      try {
        partitions = await partitionsOf(spec.name);
      } catch (error) {
        if (!(error instanceof UnknownTopicError)) throw error;
      }
      const limits = streamLimits(spec.name, partitions);
      for (let partition = 0; partition < partitions; partition += 1) {
        const description: StreamDescription = { topic: spec.name, partition, partitions };
        const name = streamName(prefix, spec.name, partition);
        let existing;
        try {
          existing = await jsm.streams.info(name);
        } catch {
          await jsm.streams.add({
            name,
            subjects: [subjectFor(prefix, spec.name, partition)],
            description: JSON.stringify(description),
            storage: StorageType.File,
            retention: RetentionPolicy.Limits,
            discard: DiscardPolicy.Old,
            num_replicas: 1,
            ...limits,
          });
          continue;
        }
        // A changed retention setting applies to the topic's existing streams.
        if (
          existing.config.max_age !== limits.max_age ||
          existing.config.max_bytes !== limits.max_bytes
        )
          await jsm.streams.update(name, { ...existing.config, ...limits });
      }
      partitionCounts.set(spec.name, partitions);
    },
    async listTopics() {
      const topics = new Map<string, number>();
      for await (const info of jsm.streams.list()) {
        if (!info.config.name.startsWith(`${prefix}_`)) continue;
        try {
          const described = JSON.parse(info.config.description ?? '') as StreamDescription;
          topics.set(described.topic, described.partitions);
        } catch {
          // not one of ours
        }
      }
      return [...topics]
        .map(([name, partitions]) => ({ name, partitions }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    async publish(topic, key, value, headers = {}, publishOptions = {}): Promise<PublishResult> {
      if (!connected || nc.isClosed())
        throw new BrokerUnavailableError('broker unavailable: NATS disconnected');
      let handedOver = false;
      try {
        const partition = partitionFor(key, await partitionsOf(topic));
        const [keyName, keyValue] = keyHeader(key);
        const sent: Record<string, string> = { ...headers, [keyName]: keyValue };
        if (publishOptions.dedupeId) sent[MSG_ID_HEADER] = publishOptions.dedupeId;
        const hdrs = publishHeaders(sent);
        const data = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
        // Checked here rather than left to the client, whose error reads like an outage.
        const bytes = data.length + hdrs.encode().length;
        if (bytes > maxPayload()) throw new MessageTooLargeError(bytes, maxPayload());
        handedOver = true;
        const ack = await acks.publish(subjectFor(prefix, topic, partition), data, hdrs);
        return {
          topic,
          partition,
          offset: ack.seq - 1,
          ...(ack.duplicate ? { duplicate: true } : {}),
        };
      } catch (error) {
        if (error instanceof UnknownTopicError || error instanceof MessageTooLargeError)
          throw error;
        // Once handed to the client, a timeout or a dropped connection leaves the record's
        // fate unknown: the server may have stored it.
        throw new BrokerUnavailableError(`broker unavailable: ${(error as Error).message}`, {
          cause: error,
          // A closed connection sends nothing more: what it still held is dropped.
          inDoubt: handedOver && !nc.isClosed(),
        });
      }
    },
    subscribe: (consumerOptions, handler) => subscribe(consumerOptions, oneByOne(handler)),
    subscribeBatches: (consumerOptions, handler) => subscribe(consumerOptions, wholeBatch(handler)),
    async missing(topic, partition, published) {
      const lost = new Set<string>();
      if (published.length === 0) return lost;
      const name = streamName(prefix, topic, partition);
      let state: { first_seq: number; last_seq: number; deleted?: number[] };
      try {
        state = (await jsm.streams.info(name, { deleted_details: true })).state;
      } catch (error) {
        if (!/stream not found/i.test((error as Error).message)) throw error;
        for (const record of published) lost.add(record.dedupeId);
        return lost;
      }
      const deleted = new Set(state.deleted ?? []);
      const seqCount = new Map<number, number>();
      for (const record of published)
        seqCount.set(record.offset, (seqCount.get(record.offset) ?? 0) + 1);
      const thorough = !verified.has(name);
      const toRead: typeof published = [];
      for (const record of published) {
        const seq = record.offset + 1;
        if (seq < state.first_seq || seq > state.last_seq || deleted.has(seq))
          lost.add(record.dedupeId);
        else if (thorough || seqCount.get(record.offset)! > 1) toRead.push(record);
      }
      if (toRead.length >= BULK_READ_FROM) {
        // Many (a partition's whole window after a reconnect): the range in one scan.
        let first = Infinity;
        let last = -Infinity;
        for (const { offset } of toRead) {
          first = Math.min(first, offset);
          last = Math.max(last, offset);
        }
        const ids = await readMessageIds(js, name, first + 1, last + 1);
        for (const record of toRead)
          if (ids.get(record.offset + 1) !== record.dedupeId) lost.add(record.dedupeId);
      } else {
        // A few (offsets given twice): each read alone, a few at once.
        for (let at = 0; at < toRead.length; at += 64) {
          await Promise.all(
            toRead.slice(at, at + 64).map(async (record) => {
              try {
                const stored = await jsm.streams.getMessage(name, { seq: record.offset + 1 });
                if (stored.header.get(MSG_ID_HEADER) !== record.dedupeId) lost.add(record.dedupeId);
              } catch (error) {
                if (/no message found/i.test((error as Error).message)) lost.add(record.dedupeId);
                else throw error;
              }
            }),
          );
        }
      }
      verified.add(name);
      if (lost.size > 0) await rewindConsumers(name, state.last_seq, published, lost);
      return lost;
    },
    async holdsRange(topic, partition, fromOffset, toOffset) {
      const name = streamName(prefix, topic, partition);
      // Not read one by one since the last (re)connect: the server may have restarted
      // without its unsynced tail and given those sequence numbers to new records.
      if (!verified.has(name)) return false;
      let state: { first_seq: number; last_seq: number; deleted?: number[] };
      try {
        state = (await jsm.streams.info(name, { deleted_details: true })).state;
      } catch (error) {
        if (/stream not found/i.test((error as Error).message)) return false;
        throw error;
      }
      const [from, to] = [fromOffset + 1, toOffset + 1];
      return (
        from >= state.first_seq &&
        to <= state.last_seq &&
        !(state.deleted ?? []).some((seq) => seq >= from && seq <= to)
      );
    },
    durability: () => durability,
    // The server enforces max_age and max_bytes itself.
    applyRetention: async () => 0,
    async ping() {
      if (nc.isClosed()) throw new BrokerUnavailableError('NATS connection closed');
      try {
        await nc.flush();
        await jsm.getAccountInfo();
      } catch (error) {
        throw new BrokerUnavailableError(`broker unavailable: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
    async close() {
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
      requests.close();
    },
  };
}

/**
 * One consumer-group member on JetStream: per partition stream, a durable pull consumer
 * named after the group, explicit ack, one message in flight (so records of a key are
 * handled strictly in order, a failed one — nak'd — comes back before the next).
 * A worker per partition pulls with `next()`, runs the handler, and acks (the commit)
 * only when it resolves. Topics that do not exist yet are picked up by a periodic refresh.
 */
import type { Logger } from '@platform/core';
import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  type Consumer as NatsConsumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from 'nats';
import { assignmentOf } from '../assignment-of.js';
import type { Assignment, BrokerRecord, Consumer, ConsumerOptions, RecordHandler } from '../broker.js';
import { durableName, streamName } from './naming.js';

export const KEY_HEADER = 'Broker-Key';

interface PartitionState extends Assignment {
  stream: string;
  generation: number;
  handle: NatsConsumer | undefined;
  worker: Promise<void> | undefined;
}

export interface JetStreamConsumerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  prefix: string;
  logger: Logger;
  options: ConsumerOptions;
  handler: RecordHandler;
  redeliveryDelayMs: number;
  /** Partition count of a topic, or undefined while it does not exist. */
  partitionsOf: (topic: string) => Promise<number | undefined>;
  onStop: (consumer: JetStreamConsumer) => void;
}

const FETCH_EXPIRES_MS = 1000;
const REFRESH_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class JetStreamConsumer implements Consumer {
  private readonly topics: Set<string>;
  private readonly partitions = new Map<string, PartitionState>();
  private readonly durable: string;
  private isPaused = false;
  private stopped = false;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly deps: JetStreamConsumerDeps) {
    this.topics = new Set(deps.options.topics);
    this.durable = durableName(deps.options.groupId);
  }

  get paused(): boolean {
    return this.isPaused;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.refreshTimer = setInterval(() => {
      this.refreshing ??= this.refresh()
        .catch((error) => this.deps.logger.warn({ err: error, groupId: this.deps.options.groupId }, 'broker refresh failed'))
        .finally(() => (this.refreshing = undefined));
    }, REFRESH_MS);
  }

  pause(): void {
    this.isPaused = true;
  }

  resume(): void {
    this.isPaused = false;
  }

  async addTopics(topics: string[]): Promise<void> {
    for (const topic of topics) this.topics.add(topic);
    await this.refresh();
  }

  async seek(topic: string, partition: number, offset: number): Promise<void> {
    const state = this.partitions.get(`${topic}\u0000${partition}`);
    const stream = state?.stream ?? streamName(this.deps.prefix, topic, partition);
    if (state) {
      state.generation += 1;
      state.handle = undefined;
    }
    await this.deps.jsm.consumers.delete(stream, this.durable).catch(() => undefined);
    await this.deps.jsm.consumers.add(stream, this.consumerConfig(DeliverPolicy.StartSequence, offset + 1));
    if (state) state.committedOffset = offset;
  }

  assignments(): Assignment[] {
    return [...this.partitions.values()].map(assignmentOf);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.refreshTimer);
    await this.refreshing;
    await Promise.all([...this.partitions.values()].map((state) => state.worker));
    this.deps.onStop(this);
  }

  private consumerConfig(policy: DeliverPolicy, startSeq?: number) {
    return {
      durable_name: this.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: policy,
      ...(startSeq === undefined ? {} : { opt_start_seq: startSeq }),
      max_ack_pending: 1,
      ack_wait: nanos(30_000),
      description: `consumer group ${this.deps.options.groupId}`,
    };
  }

  /** Assigns partitions of topics that now exist and refreshes offsets of the others. */
  private async refresh(): Promise<void> {
    for (const topic of this.topics) {
      if ([...this.partitions.values()].some((state) => state.topic === topic)) continue;
      const count = await this.deps.partitionsOf(topic);
      if (count === undefined) continue;
      for (let partition = 0; partition < count; partition += 1) await this.assign(topic, partition);
    }
    for (const state of this.partitions.values()) {
      if (!state.handle || this.stopped) continue;
      try {
        const generation = state.generation;
        const info = await state.handle.info(false);
        if (state.generation !== generation) continue; // a seek moved the offsets meanwhile
        // The reply may predate an ack that landed while it travelled: offsets only move
        // forward here (a seek sets them directly).
        state.committedOffset = Math.max(state.committedOffset, info.ack_floor.stream_seq);
        state.endOffset = Math.max(state.endOffset, info.delivered.stream_seq + info.num_pending);
      } catch {
        // consumer being re-created by a seek; next round
      }
    }
  }

  private async assign(topic: string, partition: number): Promise<void> {
    const stream = streamName(this.deps.prefix, topic, partition);
    const { jsm, js, options } = this.deps;
    let info;
    try {
      info = await jsm.consumers.info(stream, this.durable);
    } catch {
      const policy = options.fromBeginning === false ? DeliverPolicy.New : DeliverPolicy.All;
      info = await jsm.consumers.add(stream, this.consumerConfig(policy));
    }
    const state: PartitionState = {
      topic,
      partition,
      stream,
      committedOffset: info.ack_floor.stream_seq,
      endOffset: info.delivered.stream_seq + info.num_pending,
      generation: 0,
      handle: await js.consumers.get(stream, this.durable),
      worker: undefined,
    };
    this.partitions.set(`${topic}\u0000${partition}`, state);
    state.worker = this.work(state);
  }

  private async work(state: PartitionState): Promise<void> {
    while (!this.stopped) {
      if (this.isPaused) {
        await sleep(100);
        continue;
      }
      const generation = state.generation;
      let msg: JsMsg | null;
      try {
        state.handle ??= await this.deps.js.consumers.get(state.stream, this.durable);
        msg = await state.handle.next({ expires: FETCH_EXPIRES_MS, bind: true });
      } catch (error) {
        if (!this.stopped) this.deps.logger.debug({ err: error, stream: state.stream }, 'fetch failed; retrying');
        state.handle = undefined;
        await sleep(250);
        continue;
      }
      if (!msg) continue;
      if (state.generation !== generation) continue;
      if (this.isPaused || this.stopped) {
        msg.nak();
        continue;
      }
      await this.process(state, msg, generation);
    }
  }

  private async process(state: PartitionState, msg: JsMsg, generation: number): Promise<void> {
    const offset = msg.info.streamSequence - 1;
    const headers: Record<string, string> = {};
    let key = '';
    for (const name of msg.headers?.keys() ?? []) {
      const value = msg.headers!.get(name);
      if (name === KEY_HEADER) key = value;
      else headers[name] = value;
    }
    const record: BrokerRecord = {
      topic: state.topic,
      partition: state.partition,
      offset,
      key,
      value: Buffer.from(msg.data),
      headers,
      timestamp: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
    };
    try {
      await this.deps.handler(record);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, groupId: this.deps.options.groupId, topic: state.topic, partition: state.partition, offset },
        'handler failed; record will be delivered again',
      );
      msg.nak(this.deps.redeliveryDelayMs);
      return;
    }
    if (state.generation !== generation) return;
    try {
      await msg.ackAck();
      state.committedOffset = offset + 1;
      state.endOffset = Math.max(state.endOffset, offset + 1 + msg.info.pending);
    } catch (error) {
      this.deps.logger.warn({ err: error, stream: state.stream, offset }, 'ack failed; record may be delivered again');
    }
  }
}

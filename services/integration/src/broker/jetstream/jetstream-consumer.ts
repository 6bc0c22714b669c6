/**
 * One consumer-group member on JetStream: per partition stream, a durable pull consumer
 * named after the group, ack-all (one ack per batch), at most `maxBatch` messages in flight. A worker
 * per partition pulls into an inbox of its own (`pull-inbox.ts`): it waits for the first
 * message with a long poll (cheap when idle), takes what else is already there with one
 * no-wait pull, hands the batch to the delivery handler, and acks (the commit) what it
 * reports handled. The rest is nak'd without delay, in order, after the back-off was
 * waited here, and with it whatever a late poll brought meanwhile: the server redelivers
 * nak'd messages before new ones, so a failed record still comes back before anything
 * later of its partition.
 * Topics that do not exist yet are picked up by a periodic refresh.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@platform/core';
import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  type Consumer as NatsConsumer,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
} from 'nats';
import { assignmentOf } from '../assignment-of.js';
import type { DeliveryHandler } from '../batch-delivery.js';
import type { Assignment, BrokerRecord, Consumer, ConsumerOptions } from '../broker.js';
import { resumePosition } from '../resume-position.js';
import { jsonAnswer, type InboxRequests } from './inbox-requests.js';
import { keyFromHeader } from './message-key.js';
import { durableName, streamName } from './naming.js';
import { PullInbox } from './pull-inbox.js';
import type { PulledMessage } from './pulled-message.js';

interface PartitionState extends Assignment {
  stream: string;
  generation: number;
  handle: NatsConsumer | undefined;
  /** What the worker pulls into for the durable it reads now (`pull-inbox.ts`). */
  inbox?: PullInbox | undefined;
  worker: Promise<void> | undefined;
  /** True while the worker holds a batch (from its pull until acked or nak'd). */
  holding: boolean;
  /** What the last refresh saw while the worker held nothing and messages were pending. */
  stalled?: { delivered: number; ackFloor: number };
  /**
   * A batch was acked (confirmed) since the last refresh: the durable is there, the
   * offsets came with the ack and nothing is stranded (a lost delivery is a gap the worker
   * sees itself), so the refresh asks no consumer info for it this round.
   */
  progressed?: boolean;
  /** Refresh rounds in a row that found the durable gone (see `recreate`). */
  goneRounds?: number;
  /**
   * Re-reads after a lost delivery since this worker's last confirmed ack (kept across
   * the re-made durables; see `rereadBackoffMs`).
   */
  rereadsInARow?: number;
  /**
   * The durable's delivery sequence of the last message this worker received (0: a
   * durable made afresh). Every delivery, redeliveries included, takes the next one, so
   * a jump means a delivery went to a pull this worker no longer reads (`deliveryGap`).
   */
  lastDelivery: number;
  /**
   * The durable this worker reads, by its creation time (`''`: not known — re-created by
   * someone else, or the server restarted since, see `distrustAcks`), and the stream
   * sequence through which this worker's acks on it were confirmed (or where it was made
   * to start). A re-read after a lost delivery starts there, never at the server's ack
   * floor: an ack sent to a durable that was then made again under the same name lands
   * on the new one and moves its floor past records it never delivered, and a store
   * restored after a power loss can hold a floor past the end of its stream.
   */
  instance: string;
  ackedThrough: number;
  /**
   * The stream sequence of the first record this worker nak'd: the server serves nak'd
   * records before new ones, so the next batch starts there. One that does not means the
   * nak never arrived (the connection dropped with it, the server restarted with the
   * record still in flight) and acking that batch would ack the record unapplied.
   */
  nakedFrom?: number | undefined;
}

export interface JetStreamConsumerDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The JetStream API's subject prefix (`$JS.API` unless a domain or prefix is set). */
  apiPrefix: string;
  /**
   * The broker's one inbox for requests (`inbox-requests.ts`): the batch acks' confirmations
   * and the refresh's consumer-info requests are answered there, not by a client request each.
   */
  requests: InboxRequests;
  prefix: string;
  logger: Logger;
  options: ConsumerOptions;
  handler: DeliveryHandler;
  redeliveryDelayMs: number;
  /** See `JetStreamBrokerOptions.batchFetchExpiresMs`. @defaultValue 1000 */
  batchFetchExpiresMs?: number;
  /** See `JetStreamBrokerOptions.lingerMs`. @defaultValue DEFAULT_LINGER_MS */
  lingerMs?: number;
  /** Partition count of a topic, or undefined while it does not exist. */
  partitionsOf: (topic: string) => Promise<number | undefined>;
  onStop: (consumer: JetStreamConsumer) => void;
}

/** A delivered message not acknowledged within this is delivered again (a killed adapter's). */
export const ACK_WAIT_MS = 30_000;
/**
 * The stream sequence up to which a durable's messages are acked. The ack floor alone
 * reads 0 on a durable made at a later sequence (a seek, `DeliverPolicy.New`) until its
 * first ack; with nothing in flight, everything delivered was acked.
 */
function ackedThrough(info: {
  num_ack_pending: number;
  ack_floor: { stream_seq: number };
  delivered: { stream_seq: number };
}): number {
  return info.num_ack_pending === 0
    ? Math.max(info.ack_floor.stream_seq, info.delivered.stream_seq)
    : info.ack_floor.stream_seq;
}

/** The stream sequence before the first one a durable was made to deliver (0: from the start). */
function madeAfter(config: { deliver_policy: DeliverPolicy; opt_start_seq?: number }): number {
  return config.deliver_policy === DeliverPolicy.StartSequence
    ? Math.max(0, (config.opt_start_seq ?? 1) - 1)
    : 0;
}

/**
 * True when a batch does not follow on from what this worker read of its durable:
 *
 * - a hole in the delivery sequence (`lastDelivery`, then one by one): a delivery went
 *   to a pull the client had already given up on (a long poll ended on the client's
 *   timer, a stalled link) or was dropped with a failed fetch; acking anything after it
 *   would ack it too (ack-all), unapplied. A batch starting at delivery 1 is a durable
 *   made again (a rewind after lost records);
 * - a stream sequence this worker's acks already covered (`ackedThrough`): acked
 *   records never come again, so the durable was made again, or restored from a store
 *   that lost its tail, and new records took sequences it once acked.
 */
export function deliveryGap(
  batch: ReadonlyArray<{ delivery: number; sequence: number }>,
  lastDelivery: number,
  ackedThrough: number,
): boolean {
  let expected = batch[0]?.delivery === 1 ? 1 : lastDelivery + 1;
  for (const { delivery, sequence } of batch) {
    if (delivery !== expected || sequence <= ackedThrough) return true;
    expected += 1;
  }
  return false;
}

/** What the refresh reads of a durable's info. */
interface RefreshedInfo {
  /** When the durable was made (`instance`). */
  created: string;
  num_ack_pending: number;
  num_pending: number;
  delivered: { consumer_seq: number; stream_seq: number };
  ack_floor: { stream_seq: number };
}

const ACK = new TextEncoder().encode('+ACK');
const NAK = new TextEncoder().encode('-NAK');
const FETCH_EXPIRES_MS = 1000;
/** See `JetStreamBrokerOptions.lingerMs`. */
export const DEFAULT_LINGER_MS = 50;
/**
 * Most records a partition's worker holds at once (`max_ack_pending`): one batch in flight
 * a partition, so a pass of the three partitions carries at most three of these. 500 (Kafka's
 * `max.poll.records`), not the SQL log's 200: at 200 the batch bench's relational target
 * ran one full pass after another with the ack and the next pull between them, and its
 * 5,000 records came in at 2,768–3,247/s (0.30–0.35 ms CPU a record); at 500, 3,663–4,531/s
 * (0.21–0.27 ms), at 1,000 no better (3,748–4,123/s), on a 2-core Intel Xeon, 28 Nov 2026
 * (beside a /proc sampler of about 3 % of one core).
 * The SQL log keeps 200: on PGlite a larger read holds the event loop longer and the paced
 * latency rose (p99 522–666 ms at 200, 818–916 ms at 500), with no throughput gained.
 */
export const DEFAULT_JETSTREAM_MAX_BATCH = 500;
/** A long poll not seen to end this long after its expiry (a server that died with it) is sent again. */
const POLL_GRACE_MS = 1000;
const REFRESH_MS = 1000;
/** How much longer than its linger the client waits for a linger pull's expiry to reach it. */
const LINGER_GRACE_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** `sleep`, ended early (resolved) when `signal` aborts. */
const sleepUnless = (ms: number, signal: AbortSignal): Promise<unknown> =>
  delay(ms, undefined, { signal }).catch(() => undefined);
/** The longest wait before a re-read of a partition that keeps losing deliveries. */
export const MAX_REREAD_BACKOFF_MS = 5000;

/**
 * How long a worker waits before its `inARow`-th re-read after a lost delivery with no
 * batch acked in between. The first goes at once (a lost delivery is a one-off, and the
 * record it lost should come again within the batch's latency); from the second on,
 * 100 ms doubling up to `MAX_REREAD_BACKOFF_MS`. A partition that loses every re-made
 * durable's deliveries (another reader on the durable, a pull nobody reads) would
 * otherwise be made again hundreds of times a second, each time a consumer info, a
 * delete and an add (the workers-mode bench of 28 Nov 2026: 30,478 in one phase).
 */
export function rereadBackoffMs(inARow: number): number {
  return inARow <= 1 ? 0 : Math.min(MAX_REREAD_BACKOFF_MS, 100 * 2 ** (inARow - 2));
}

const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class JetStreamConsumer implements Consumer {
  private readonly topics: Set<string>;
  private readonly partitions = new Map<string, PartitionState>();
  /** Each topic's partition count, once known (a topic's partitions never change). */
  private readonly partitionCounts = new Map<string, number>();
  private readonly durable: string;
  private readonly maxBatch: number;
  private readonly lingerMs: number;
  private isPaused = false;
  private stopped = false;
  private refreshTimer: NodeJS.Timeout | undefined;
  /** The refresh running or queued (`refresh`); settles, never rejects. */
  private refreshing: Promise<void> | undefined;
  /** Ends the waits a stopping consumer must not sit out (a re-read's back-off). */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: JetStreamConsumerDeps) {
    this.topics = new Set(deps.options.topics);
    this.durable = durableName(deps.options.groupId);
    this.maxBatch = Math.max(1, deps.options.maxBatch ?? DEFAULT_JETSTREAM_MAX_BATCH);
    this.lingerMs = Math.max(0, deps.lingerMs ?? DEFAULT_LINGER_MS);
  }

  get paused(): boolean {
    return this.isPaused;
  }

  /**
   * Assigns the partitions of the topics that exist and starts their workers. When that
   * fails part-way (a server error on one partition), the consumer is stopped before the
   * error goes to the caller: workers already started on the earlier partitions would
   * otherwise go on pulling for a consumer nobody holds, and the caller, told the
   * subscribe failed, subscribes again — a second reader of each of those durables. The
   * two split the deliveries, each saw holes and re-made the durable (re-reads in pairs,
   * at the back-off cap, until the process ended): the 200-fault chaos run of 28 Nov
   * 2026, whose csv adapter started as NATS lost power (`jetstream-two-pulls.test.ts`).
   */
  async start(): Promise<void> {
    try {
      await this.refresh();
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.refreshTimer = setInterval(() => {
      // One running or queued (an `addTopics`'s) is this round's.
      if (this.refreshing) return;
      this.refresh().catch((error) =>
        this.deps.logger.warn(
          { err: error, groupId: this.deps.options.groupId },
          'broker refresh failed',
        ),
      );
    }, REFRESH_MS);
  }

  pause(): void {
    this.isPaused = true;
    for (const state of this.partitions.values()) state.inbox?.interrupt();
  }

  resume(): void {
    this.isPaused = false;
  }

  async addTopics(topics: string[]): Promise<void> {
    for (const topic of topics) this.topics.add(topic);
    await this.refresh();
  }

  async seek(topic: string, partition: number, offset: number): Promise<void> {
    const state = this.partitions.get(partitionKey(topic, partition));
    await this.remake(
      state?.stream ?? streamName(this.deps.prefix, topic, partition),
      state,
      offset,
    );
  }

  /**
   * Makes the durable on `stream` again to deliver from `offset` + 1; `state`, the
   * worker reading it (if any), drops what it holds and starts on the new one. A worker's
   * own re-reads pass their own state, never one looked up by partition.
   */
  private async remake(
    stream: string,
    state: PartitionState | undefined,
    offset: number,
  ): Promise<void> {
    if (state) this.forget(state);
    await this.deps.jsm.consumers.delete(stream, this.durable).catch(() => undefined);
    const info = await this.deps.jsm.consumers.add(
      stream,
      this.consumerConfig(DeliverPolicy.StartSequence, offset + 1),
    );
    if (state) {
      state.committedOffset = offset;
      state.instance = info.created;
      state.ackedThrough = offset;
    }
  }

  /**
   * The broker is about to make this group's durable on `stream` again (records the
   * server lost, `jetstream-broker.ts`): the batch in hand is dropped unacked, since its
   * ack would land on the new durable and move its floor past records it never delivered.
   */
  forgetDurable(stream: string, durable: string): void {
    if (durable !== this.durable) return;
    for (const state of this.partitions.values()) if (state.stream === stream) this.forget(state);
  }

  /**
   * The connection came back (the server may have restarted): a store that lost its
   * unsynced tail keeps its durables (same creation time) but gives the lost sequences
   * to new records, so what the workers acked before no longer says what they applied.
   * A re-read now starts where the durable was made to start.
   */
  distrustAcks(): void {
    for (const state of this.partitions.values()) state.instance = '';
  }

  /** Drops what the worker holds and knows of its durable, which is about to be made again. */
  private forget(state: PartitionState): void {
    state.generation += 1;
    state.handle = undefined;
    state.inbox?.close();
    state.inbox = undefined;
    state.lastDelivery = 0;
    state.nakedFrom = undefined;
    state.instance = '';
    state.ackedThrough = 0;
    state.progressed = false;
  }

  assignments(): Assignment[] {
    return [...this.partitions.values()].map(assignmentOf);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.refreshTimer);
    this.stopping.abort();
    for (const state of this.partitions.values()) state.inbox?.interrupt();
    await this.refreshing;
    await Promise.all([...this.partitions.values()].map((state) => state.worker));
    this.deps.onStop(this);
  }

  private consumerConfig(policy: DeliverPolicy, startSeq?: number) {
    return {
      durable_name: this.durable,
      // One ack per batch: acking a message acks every earlier one of the partition.
      ack_policy: AckPolicy.All,
      deliver_policy: policy,
      ...(startSeq === undefined ? {} : { opt_start_seq: startSeq }),
      max_ack_pending: this.maxBatch,
      ack_wait: nanos(ACK_WAIT_MS),
      description: `consumer group ${this.deps.options.groupId}`,
    };
  }

  /**
   * Runs a refresh after the one running, if any. Never two at once: each finds a new
   * topic unassigned and, across its awaits, both assigned it — two workers on one
   * durable, the second's state replacing the first's in the map while the first's went
   * on pulling. They split the deliveries, so each saw holes and made the durable again,
   * and the orphan's re-reads (its state never forgotten) never ended: the livelock of
   * the workers-mode bench (28 Nov 2026), an `addTopics` beside the periodic refresh.
   */
  private refresh(): Promise<void> {
    const run = (this.refreshing ?? Promise.resolve()).then(() => this.refreshPartitions());
    const settled: Promise<void> = run
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        if (this.refreshing === settled) this.refreshing = undefined;
      });
    this.refreshing = settled;
    return run;
  }

  /**
   * Assigns the partitions not assigned yet of topics that now exist, and refreshes
   * offsets of the others. A partition whose assign failed (a server error mid-refresh)
   * is tried again on the next round, whatever became of its topic's other partitions
   * (once, a topic with any partition assigned was skipped, so one failed partition went
   * unread until the process restarted). Rejects with the first failure, after trying
   * every partition and refreshing the assigned ones.
   */
  private async refreshPartitions(): Promise<void> {
    if (this.stopped) return; // one queued behind a stop assigns nothing
    let failure: { error: unknown } | undefined;
    for (const topic of this.topics) {
      let count = this.partitionCounts.get(topic);
      if (count === undefined) {
        try {
          count = await this.deps.partitionsOf(topic);
        } catch (error) {
          failure ??= { error };
          continue;
        }
        if (count === undefined) continue;
        this.partitionCounts.set(topic, count);
      }
      for (let partition = 0; partition < count; partition += 1) {
        if (this.stopped) return;
        if (this.partitions.has(partitionKey(topic, partition))) continue;
        try {
          await this.assign(topic, partition);
        } catch (error) {
          this.deps.logger.warn(
            { err: error, groupId: this.deps.options.groupId, topic, partition },
            'assigning a partition failed; trying again on the next refresh',
          );
          failure ??= { error };
        }
      }
    }
    for (const state of this.partitions.values()) {
      if (!state.handle || this.stopped) continue;
      if (state.progressed) {
        // Delivering: what the info would say came with the acks (see `progressed`).
        state.progressed = false;
        state.stalled = undefined;
        state.goneRounds = 0;
        continue;
      }
      try {
        const generation = state.generation;
        const info = await this.consumerInfo(state.stream);
        if (state.generation !== generation) continue; // a seek moved the offsets meanwhile
        if (state.instance !== '' && info.created !== state.instance) {
          // Made again by someone this worker was not told about (another process's or
          // thread's rewind after lost records): what it holds and its pulls belong to the
          // durable that is gone, and an ack of its batch would land on the new one. It
          // starts over on the new durable (a re-read then starts where that was made to).
          this.deps.logger.warn(
            { groupId: this.deps.options.groupId, topic: state.topic, partition: state.partition },
            'the consumer was made again elsewhere; reading the new one',
          );
          this.forget(state);
          continue;
        }
        if (await this.redeliverStranded(state, info)) continue;
        // The reply may predate an ack that landed while it travelled: offsets only move
        // forward here (a seek sets them directly).
        state.committedOffset = Math.max(state.committedOffset, info.ack_floor.stream_seq);
        state.endOffset = Math.max(state.endOffset, info.delivered.stream_seq + info.num_pending);
        state.goneRounds = 0;
      } catch (error) {
        // Gone for one round: a seek or rewind re-creating it. Gone for two: the add after
        // the delete never happened, and nothing would read this partition again.
        if (!/consumer not found/i.test((error as Error).message)) continue;
        state.goneRounds = (state.goneRounds ?? 0) + 1;
        if (state.goneRounds < 2) continue;
        state.goneRounds = 0;
        this.forget(state);
        await this.recreate(state).catch((err: unknown) =>
          this.deps.logger.warn({ err, stream: state.stream }, 're-creating the consumer failed'),
        );
      }
    }
    if (failure) throw failure.error;
  }

  /** The durable's info on `stream`, asked through the broker's one inbox. */
  private async consumerInfo(stream: string): Promise<RefreshedInfo> {
    const answer = await this.deps.requests.request(
      `${this.deps.apiPrefix}.CONSUMER.INFO.${stream}.${this.durable}`,
    );
    return jsonAnswer<RefreshedInfo>(answer, 'a consumer info request');
  }

  /**
   * Messages the server counts as in flight while the worker holds none were sent to a
   * pull the client had already given up on (its long poll ends on the client's timer,
   * which can fire before the server's expiry reaches it): they would come back only
   * after `ack_wait` (30 s), behind later ones. Seen on two refreshes in a row with
   * nothing delivered or acked in between, the durable is re-created where this worker's
   * acks end (`safeRereadPosition`, as a seek does), so they come again at once and in order. A batch the worker took
   * meanwhile is dropped by the seek's new generation and delivered again (targets skip
   * what they applied). Returns true when it re-created the durable.
   */
  private async redeliverStranded(
    state: PartitionState,
    info: {
      num_ack_pending: number;
      delivered: { consumer_seq: number };
      ack_floor: { stream_seq: number };
    },
  ): Promise<boolean> {
    const seen = { delivered: info.delivered.consumer_seq, ackFloor: info.ack_floor.stream_seq };
    if (
      state.holding ||
      (state.inbox?.size ?? 0) > 0 ||
      info.num_ack_pending === 0 ||
      this.isPaused
    ) {
      state.stalled = undefined;
      return false;
    }
    const before = state.stalled;
    state.stalled = seen;
    if (before?.delivered !== seen.delivered || before.ackFloor !== seen.ackFloor) return false;
    state.stalled = undefined;
    this.deps.logger.warn(
      {
        groupId: this.deps.options.groupId,
        topic: state.topic,
        partition: state.partition,
        inFlight: info.num_ack_pending,
        ackFloor: seen.ackFloor,
      },
      'messages stranded in an abandoned pull; re-reading the partition',
    );
    await this.remake(state.stream, state, await this.safeRereadPosition(state));
    return true;
  }

  /**
   * Where a re-read of a partition may start without skipping a record nobody applied:
   * what this worker's confirmed acks on the durable cover, or, on a durable someone
   * else made again, where that one was made to start; never past `before` (the record
   * just handed over: a store restored after a power loss gives new records sequences
   * this worker once acked). Not the server's ack floor (see `instance`).
   */
  private async safeRereadPosition(state: PartitionState, before?: number): Promise<number> {
    const info = await this.deps.jsm.consumers.info(state.stream, this.durable);
    const covered = info.created === state.instance ? state.ackedThrough : madeAfter(info.config);
    return Math.max(0, Math.min(covered, before ?? covered));
  }

  /**
   * A delivery never reached this worker (`deliveryGap`): the batch is dropped unhandled
   * and the durable made again where this worker's confirmed acks end (as a seek does),
   * so the missing record comes again at once and before the later ones. Acking the
   * batch would have acked it too, unapplied (found by the chaos run: a stalled NATS
   * link lost records).
   */
  private async rereadAfterLostDelivery(
    state: PartitionState,
    batch: PulledMessage[],
    generation: number,
  ): Promise<void> {
    const inARow = (state.rereadsInARow ?? 0) + 1;
    state.rereadsInARow = inARow;
    const backoffMs = rereadBackoffMs(inARow);
    if (backoffMs > 0) {
      // Holding the batch (the refresh leaves a holding worker's durable alone); a stop
      // ends the wait, a seek meanwhile makes the re-read moot.
      await sleepUnless(backoffMs, this.stopping.signal);
      if (this.stopped || state.generation !== generation) return;
    }
    // Read after the wait: a lost connection meanwhile (`distrustAcks`) moves it back.
    const from = await this.safeRereadPosition(state, batch[0]!.streamSequence - 1);
    this.deps.logger.warn(
      {
        groupId: this.deps.options.groupId,
        topic: state.topic,
        partition: state.partition,
        lastDelivery: state.lastDelivery,
        deliveries: [batch[0]!.deliverySequence, batch.at(-1)!.deliverySequence],
        rereadAfter: from,
        rereadsInARow: inARow,
        backoffMs,
      },
      'a delivery never reached this worker (an abandoned pull); re-reading the partition',
    );
    await this.remake(state.stream, state, from);
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
    // A durable of an earlier release acked each message (explicit): the policy cannot be
    // updated, so it is made again at its ack floor (nothing acked comes again).
    if (info.config.ack_policy !== AckPolicy.All) {
      const from = ackedThrough(info) + 1;
      await jsm.consumers.delete(stream, this.durable);
      info = await jsm.consumers.add(
        stream,
        this.consumerConfig(DeliverPolicy.StartSequence, from),
      );
    }
    // A durable made by an earlier version (one in flight) or another batch size.
    if (info.config.max_ack_pending !== this.maxBatch) {
      info = await jsm.consumers.update(stream, this.durable, { max_ack_pending: this.maxBatch });
    }
    const committed = ackedThrough(info);
    const start = await resumePosition({
      resumeAt: options.resumeAt,
      topic,
      partition,
      committed,
      end: info.delivered.stream_seq + info.num_pending,
      readAt: (offset) => this.readAt(stream, topic, partition, offset),
      logger: this.deps.logger,
      groupId: options.groupId,
    });
    // Messages delivered to a worker that is gone (a killed process) wait out ack_wait as
    // pending, and the server meanwhile delivers later ones: with one ack for all, this
    // worker's first ack would ack them unapplied. So a durable with messages in flight is
    // made again at its ack floor (they come again first, in order), or after the target's
    // position when the target applied more (start > committed).
    if (start > committed || info.num_ack_pending > 0) {
      await jsm.consumers.delete(stream, this.durable);
      info = await jsm.consumers.add(
        stream,
        this.consumerConfig(DeliverPolicy.StartSequence, Math.max(start, committed) + 1),
      );
    }
    const handle = await js.consumers.get(stream, this.durable);
    // Assigned meanwhile, or stopped (`refresh` runs one at a time; this keeps a second
    // worker off the durable whatever the caller): checked after the last await.
    if (this.stopped || this.partitions.has(partitionKey(topic, partition))) return;
    const state: PartitionState = {
      topic,
      partition,
      stream,
      committedOffset: Math.max(start, committed),
      endOffset: info.delivered.stream_seq + info.num_pending,
      generation: 0,
      handle,
      worker: undefined,
      holding: false,
      lastDelivery: info.delivered.consumer_seq,
      instance: info.created,
      ackedThrough: Math.max(start, committed),
    };
    this.partitions.set(partitionKey(topic, partition), state);
    state.worker = this.work(state);
  }

  /**
   * True while `state` is its partition's own state in a running consumer: a worker
   * pulls only then. Two readers of one durable split its deliveries, each sees holes
   * and re-makes the durable under the other (see `start`), so a worker whose state was
   * replaced, or whose consumer stopped, ends rather than pull beside the one in charge.
   */
  private owns(state: PartitionState): boolean {
    return (
      !this.stopped && this.partitions.get(partitionKey(state.topic, state.partition)) === state
    );
  }

  private async work(state: PartitionState): Promise<void> {
    let inbox: PullInbox | undefined;
    try {
      while (this.owns(state)) {
        if (this.isPaused) {
          // What an earlier poll brought meanwhile goes back, in order (nothing is held while paused).
          const held = inbox?.take() ?? [];
          if (held.length > 0) {
            state.nakedFrom = held[0]!.streamSequence;
            this.nak(held);
          }
          await sleep(100);
          continue;
        }
        const generation = state.generation;
        if (state.inbox !== inbox || !inbox) {
          // A new durable (a seek, a re-read): what the old inbox held or may still get
          // belongs to the durable that is gone.
          inbox?.close();
          inbox = undefined;
          try {
            state.handle ??= await this.deps.js.consumers.get(state.stream, this.durable);
          } catch (error) {
            if (!this.stopped)
              this.deps.logger.debug({ err: error, stream: state.stream }, 'consumer not ready');
            await sleep(250);
            continue;
          }
          if (state.generation !== generation || !this.owns(state)) continue;
          inbox = this.openInbox(state);
        }
        const current = inbox;
        const moved = () => !this.owns(state) || this.isPaused || state.generation !== generation;
        if (current.size === 0) {
          // Wait for the first message with a long poll (sent with the last batch's ack
          // when that handed everything over, see `process`); a poll the worker stopped
          // waiting for (a stalled server) still answers into the same inbox, so another
          // is sent only once it is past its expiry and grace.
          const now = Date.now();
          const endings = current.endings;
          current.longPoll(FETCH_EXPIRES_MS, POLL_GRACE_MS);
          await current.wait(
            FETCH_EXPIRES_MS + POLL_GRACE_MS,
            () => current.size > 0 || !current.polling || moved(),
          );
          // Refused at once (the durable being made again, no responders): not a busy loop.
          if (current.size === 0 && current.endings > endings && Date.now() - now < 500)
            await sleep(250);
          if (current.size === 0 || moved()) continue;
        }
        if (this.maxBatch > 1 && current.size < this.maxBatch) await this.fill(current, moved);
        if (state.generation !== generation) continue;
        const batch = current.take(this.maxBatch);
        if (batch.length === 0) continue;
        state.holding = true;
        try {
          await this.handleBatch(state, batch, generation);
        } finally {
          state.holding = false;
        }
        if (state.nakedFrom !== undefined && state.generation === generation) {
          // The batch was handed back from a record on: what arrived after it goes back
          // too, behind it, so nothing later of the partition overtakes the failed record.
          this.nak(current.take());
        }
      }
    } finally {
      inbox?.close();
      if (state.inbox === inbox) state.inbox = undefined;
    }
  }

  /**
   * Takes the rest of a batch after its first record. With a linger, one pull that the
   * server answers with what is there and then with what arrives within `lingerMs`, ended
   * by the batch filling or the server's expiry (Kafka's `fetch.max.wait.ms`): a
   * partition fed a steady stream is handed over in batches of what arrives in the linger
   * as well as during the previous batch's handling, so each target transaction, fsync
   * and ack carries more records. Without one, what is there now, with one no-wait pull
   * (it answers at once and ends), and only when the first record said more was there.
   */
  private async fill(current: PullInbox, moved: () => boolean): Promise<void> {
    const want = this.maxBatch - current.size;
    const endings = current.endings;
    if (this.lingerMs > 0) {
      current.pull({ batch: want, expiresMs: this.lingerMs });
      // The server's expiry (a status) normally ends the wait; the client's deadline is
      // for a server that died with the pull (a late answer is the next batch's).
      await current.wait(
        this.lingerMs + LINGER_GRACE_MS,
        () => current.size >= this.maxBatch || current.endings > endings || moved(),
      );
      return;
    }
    if (current.last!.pending === 0) return;
    current.pull({ batch: want, noWait: true });
    await current.wait(
      this.deps.batchFetchExpiresMs ?? FETCH_EXPIRES_MS,
      () =>
        current.size >= this.maxBatch ||
        current.endings > endings ||
        current.last!.pending === 0 ||
        moved(),
    );
  }

  private openInbox(state: PartitionState): PullInbox {
    state.inbox = new PullInbox(this.deps.nc, this.deps.apiPrefix, state.stream, this.durable, {
      topic: state.topic,
      partition: state.partition,
    });
    return state.inbox;
  }

  /** One batch as the worker read it: checked for lost deliveries, then handled and acked. */
  private async handleBatch(
    state: PartitionState,
    batch: PulledMessage[],
    generation: number,
  ): Promise<void> {
    const deliveries = batch.map((msg) => ({
      delivery: msg.deliverySequence,
      sequence: msg.streamSequence,
    }));
    const nakLost = state.nakedFrom !== undefined && deliveries[0]!.sequence !== state.nakedFrom;
    state.nakedFrom = undefined;
    if (nakLost || deliveryGap(deliveries, state.lastDelivery, state.ackedThrough)) {
      await this.rereadAfterLostDelivery(state, batch, generation).catch((err: unknown) =>
        this.deps.logger.warn(
          { err, stream: state.stream },
          're-reading a partition after a lost delivery failed; retrying',
        ),
      );
      return;
    }
    state.lastDelivery = deliveries.at(-1)!.delivery;
    this.deps.logger.debug(
      {
        groupId: this.deps.options.groupId,
        stream: state.stream,
        sequences: [deliveries[0]!.sequence, deliveries.at(-1)!.sequence],
        deliveries: [deliveries[0]!.delivery, deliveries.at(-1)!.delivery],
      },
      'batch received',
    );
    if (this.isPaused || this.stopped) {
      state.nakedFrom = batch[0]!.streamSequence;
      this.nak(batch);
      return;
    }
    await this.process(state, batch, generation);
  }

  private async readAt(
    stream: string,
    topic: string,
    partition: number,
    offset: number,
  ): Promise<BrokerRecord | undefined> {
    try {
      const stored = await this.deps.jsm.streams.getMessage(stream, { seq: offset + 1 });
      const headers: Record<string, string> = {};
      let key = '';
      for (const name of stored.header?.keys() ?? []) {
        const value = stored.header.get(name);
        const keyHere = keyFromHeader(name, value);
        if (keyHere !== undefined) key = keyHere;
        else headers[name] = value;
      }
      return {
        topic,
        partition,
        offset,
        key,
        value: Buffer.from(stored.data),
        headers,
        timestamp: stored.time,
      };
    } catch (error) {
      if (/no message found/i.test((error as Error).message)) return undefined;
      throw error;
    }
  }

  /**
   * The durable is gone: a re-creation (seek, resume, or the broker's rewind after lost
   * records) deleted it and the server failed before the add (found by the chaos run's
   * NATS power loss: a partition stopped being read for good). Where it stood is unknown,
   * so it reads the partition from its start, as a new group does; the targets' positions
   * and record-id gates make what was applied already a no-op.
   */
  private async recreate(state: PartitionState): Promise<void> {
    const policy =
      this.deps.options.fromBeginning === false ? DeliverPolicy.New : DeliverPolicy.All;
    this.deps.logger.warn(
      { stream: state.stream, consumer: this.durable },
      'the consumer was gone; re-created to read the partition from its start',
    );
    const info = await this.deps.jsm.consumers.add(state.stream, this.consumerConfig(policy));
    state.instance = info.created;
    state.ackedThrough = info.delivered.stream_seq;
  }

  /** Hands messages back: the server delivers them again before anything later. */
  private nak(messages: PulledMessage[]): void {
    for (const msg of messages) this.deps.nc.publish(msg.reply, NAK);
  }

  private async process(
    state: PartitionState,
    batch: PulledMessage[],
    generation: number,
  ): Promise<void> {
    const records = batch.map((msg) => msg.record);
    const interrupted = () => this.stopped || this.isPaused || state.generation !== generation;
    const { handled, error } = await this.deps.handler(records, interrupted);
    if (error !== undefined) {
      const failed = records[handled]!;
      this.deps.logger.warn(
        {
          err: error,
          groupId: this.deps.options.groupId,
          topic: state.topic,
          partition: state.partition,
          offset: failed.offset,
        },
        'handler failed; records will be delivered again',
      );
    }
    if (state.generation !== generation) return;
    if (handled > 0) {
      const last = batch[handled - 1]!;
      if (
        handled === batch.length &&
        state.inbox?.size === 0 &&
        !this.isPaused &&
        this.owns(state)
      ) {
        // The next batch's long poll goes out with this ack (one socket write, and the
        // next record comes without waiting for the ack's answer first); the server
        // holds it while the batch fills `max_ack_pending`, until the ack lands.
        state.inbox.longPoll(FETCH_EXPIRES_MS, POLL_GRACE_MS);
      }
      try {
        // Ack-all: this one acks every earlier one; the server's answer confirms it (what
        // `ackedThrough`, the start of a re-read, relies on), answered into the one inbox.
        await this.deps.requests.request(last.reply, ACK);
        if (state.generation === generation) {
          state.ackedThrough = last.streamSequence;
          state.progressed = true;
          state.rereadsInARow = 0;
        }
        state.committedOffset = last.streamSequence;
        state.endOffset = Math.max(state.endOffset, last.streamSequence + last.pending);
      } catch (err) {
        this.deps.logger.warn(
          { err, stream: state.stream, offset: records[handled - 1]!.offset },
          'ack failed; records may be delivered again',
        );
      }
    }
    if (handled < batch.length) {
      // The back-off is waited here, not as a nak delay: a delayed nak would let newer
      // messages overtake the failed ones.
      if (error !== undefined && !this.stopped) await sleep(this.deps.redeliveryDelayMs);
      if (state.generation === generation) state.nakedFrom = batch[handled]!.streamSequence;
      this.nak(batch.slice(handled));
    }
  }
}

/**
 * One adapter process's engine: registers the adapter type with the control plane,
 * reads attachments at start and on every refresh (the refresh re-registers, which is
 * the liveness heartbeat), subscribes its own consumer group to the topics of attached
 * contracts (plus the legacy flat topic), runs the adapter pipeline (the record processor) for every record, and
 * answers pause / resume / status. A pause requested before the consumer exists is kept
 * and applied when it is created, so it still reports paused once assigned.
 *
 * Attachment changes arrive through a long poll of the control plane's feed (`watch`):
 * the control plane answers as soon as the feed differs from the version the adapter
 * holds, so a new or changed attachment is served within milliseconds. A lost answer is
 * healed by the next poll, which carries the old version and so is answered at once; the
 * refresh interval still re-reads the whole feed as a last resort.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@platform/core';
import type { Registry } from 'prom-client';
import type { Broker, Consumer, ResumeAt } from '../../broker/broker.js';
import { createAdapterMetrics, observeFirstWrites } from './adapter-metrics.js';
import type { AdapterTarget } from './adapter-target.js';
import { AttachmentRegistry } from './attachment-registry.js';
import { AttachmentStats, observeAttachments, type AttachmentFigures } from './attachment-stats.js';
import { contractOfTopic, type AttachmentView } from './attachment.js';
import type { AttachmentSource } from './control-plane-client.js';
import { DEFAULT_RULES } from './failures.js';
import { samePublish } from './applied-position.js';
import { deserialize } from './local-envelope.js';
import { createRecordProcessor, type RecordProcessor } from './record-processor.js';
import type { RetryPolicy } from './retry-policy.js';

export interface AdapterRuntimeOptions {
  target: AdapterTarget;
  broker: Broker;
  logger: Logger;
  attachments: AttachmentSource;
  /** Explicit and unique per adapter (spec rule 3), e.g. `adapter.csv`. */
  consumerGroup: string;
  /** Where the admin API answers; sent in the type descriptor. */
  adminUrl?: string | undefined;
  refreshIntervalMs: number;
  /** Longest wait of one long poll of the attachments feed. @defaultValue 20 */
  watchWaitSeconds?: number;
  retry: RetryPolicy;
  metrics: Registry;
}

export interface AdapterStatus {
  adapterType: string;
  consumerGroup: string;
  state: 'starting' | 'running' | 'paused' | 'stopped';
  paused: boolean;
  brokerDriver: string;
  /** Each attachment with its contract's lag (its topics, this consumer group) and its own figures. */
  attachments: Array<
    { attachmentId: string; contractId: string; enabled: boolean; lag: number } & AttachmentFigures
  >;
  topics: string[];
  assignments: Array<{
    topic: string;
    partition: number;
    committedOffset: number;
    endOffset: number;
    lag: number;
  }>;
  lag: number;
  lastRefreshAt: string | null;
  lastRefreshError: string | null;
}

export class AdapterRuntime {
  private readonly registry = new AttachmentRegistry();
  private readonly stats = new AttachmentStats();
  private readonly records: RecordProcessor;
  private consumer: Consumer | undefined;
  private subscribedTopics = new Set<string>();
  private desiredPaused = false;
  private stopped = false;
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private lastRefreshAt: Date | null = null;
  private lastRefreshError: string | null = null;
  /** Feed version of the attachments applied last ('' before the first watch answer). */
  private feedVersion = '';
  /** Applies attachment lists one at a time (the refresh and the watch both deliver them). */
  private applying: Promise<void> = Promise.resolve();
  private readonly watchAbort = new AbortController();

  constructor(private readonly options: AdapterRuntimeOptions) {
    const metrics = createAdapterMetrics(
      options.metrics,
      options.target.type,
      () => this.consumer?.assignments() ?? [],
    );
    this.records = createRecordProcessor({
      target: observeAttachments(observeFirstWrites(options.target, options.metrics), this.stats),
      registry: this.registry,
      broker: options.broker,
      logger: options.logger,
      consumerGroup: options.consumerGroup,
      retry: options.retry,
      metrics,
      rules: [...(options.target.classificationRules ?? []), ...DEFAULT_RULES],
      isStopping: () => this.stopped,
    });
  }

  get type(): string {
    return this.options.target.type;
  }

  /** Validates the target, then tries the first refresh; on failure keeps retrying on the interval. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.options.target.start?.();
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshIntervalMs);
    // The loop handles its own failures; stop() aborts it.
    if (this.options.attachments.watch) void this.watchLoop();
  }

  /** Re-registers the type, reloads attachments and subscribes to new topics. */
  refresh(): Promise<void> {
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  pause(): void {
    this.desiredPaused = true;
    this.consumer?.pause();
    this.options.logger.info({ consumerGroup: this.options.consumerGroup }, 'adapter paused');
  }

  resume(): void {
    this.desiredPaused = false;
    this.consumer?.resume();
    this.options.logger.info({ consumerGroup: this.options.consumerGroup }, 'adapter resumed');
  }

  /**
   * Moves this consumer group's position on one partition (an operator's rewind): records
   * delivered again below a target's stored position are skipped by the target.
   */
  async seek(topic: string, partition: number, offset: number): Promise<void> {
    if (!this.consumer) throw new Error('the adapter has not subscribed yet');
    await this.consumer.seek(topic, partition, offset);
  }

  status(): AdapterStatus {
    const assignments = (this.consumer?.assignments() ?? []).map((a) => ({
      ...a,
      lag: Math.max(0, a.endOffset - a.committedOffset),
    }));
    const paused = this.consumer ? this.consumer.paused : this.desiredPaused;
    const lagOf = new Map<string, number>();
    for (const a of assignments)
      lagOf.set(contractOfTopic(a.topic), (lagOf.get(contractOfTopic(a.topic)) ?? 0) + a.lag);
    return {
      adapterType: this.options.target.type,
      consumerGroup: this.options.consumerGroup,
      state: this.stopped ? 'stopped' : paused ? 'paused' : this.consumer ? 'running' : 'starting',
      paused,
      brokerDriver: this.options.broker.driver,
      attachments: this.registry.all().map(({ attachmentId, contractId, enabled }) => ({
        attachmentId,
        contractId,
        enabled,
        lag: lagOf.get(contractId) ?? 0,
        ...this.stats.figures(attachmentId),
      })),
      topics: [...this.subscribedTopics].sort(),
      assignments,
      lag: assignments.reduce((sum, a) => sum + a.lag, 0),
      lastRefreshAt: this.lastRefreshAt?.toISOString() ?? null,
      lastRefreshError: this.lastRefreshError,
    };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    // The watch is aborted, not awaited: an attachment list it is applying may wait on
    // the consumer, which stops below; an apply begun after this point does nothing.
    this.watchAbort.abort();
    await this.refreshing?.catch(() => undefined);
    await this.consumer?.stop();
  }

  private async doRefresh(): Promise<void> {
    if (this.stopped) return;
    const { target, attachments, logger, consumerGroup } = this.options;
    try {
      await attachments.register({
        type: target.type,
        description: target.description,
        configSchema: target.configSchema,
        consumerGroup,
        adminUrl: this.options.adminUrl,
      });
      const list = await attachments.attachments(target.type);
      await this.apply(list);
      this.lastRefreshAt = new Date();
      this.lastRefreshError = null;
    } catch (error) {
      this.lastRefreshError = (error as Error).message;
      logger.warn(
        { err: error, consumerGroup },
        'attachment refresh failed; keeping the previous attachments',
      );
    }
  }

  /** Replaces the attachments with `list`, one list at a time. */
  private apply(list: AttachmentView[]): Promise<void> {
    const type = this.options.target.type;
    const run = this.applying.then(async () => {
      if (this.stopped) return;
      const changed = this.registry.update(list.filter((a) => a.adapterType === type));
      await this.records.invalidate(changed);
      const present = new Set(this.registry.all().map((a) => a.attachmentId));
      for (const id of changed) if (!present.has(id)) this.stats.forget(id);
      await this.subscribe(this.registry.topics());
    });
    this.applying = run.catch(() => undefined);
    return run;
  }

  /** Long-polls the feed while running; after a failure waits a little, growing to 5 s. */
  private async watchLoop(): Promise<void> {
    const { attachments, target, logger, consumerGroup } = this.options;
    let failures = 0;
    while (!this.stopped) {
      try {
        const feed = await attachments.watch!(
          target.type,
          this.feedVersion,
          this.options.watchWaitSeconds ?? 20,
          this.watchAbort.signal,
        );
        if (this.stopped) return;
        if (feed.version !== this.feedVersion) {
          await this.apply(feed.attachments);
          this.feedVersion = feed.version;
        }
        // A feed answer is a refresh of the attachments as much as the interval's is.
        this.lastRefreshAt = new Date();
        this.lastRefreshError = null;
        failures = 0;
      } catch (error) {
        if (this.stopped) return;
        failures += 1;
        if (failures === 1)
          logger.warn({ err: error, consumerGroup }, 'attachment watch failed; retrying');
        // Cut short by stop(), so a stopping adapter never waits out its back-off.
        await sleep(Math.min(5000, 100 * 2 ** failures), undefined, {
          signal: this.watchAbort.signal,
        }).catch(() => undefined);
      }
    }
  }

  /**
   * Offsets in the target: a partition resumes at the lowest position the targets of its
   * contract's enabled attachments stored (all of them must hold one), checked against
   * the record before it and by the records below it (every one the broker holds there
   * must be applied: `resume-position.ts`).
   */
  private readonly resumeAt: ResumeAt = async (topic, partition) => {
    const contractId = contractOfTopic(topic);
    const attachments = this.registry.all().filter((a) => a.enabled && a.contractId === contractId);
    if (attachments.length === 0) return undefined;
    const positions = await Promise.all(
      attachments.map((a) => this.records.appliedPosition(a, topic, partition)),
    );
    let lowest = positions[0];
    for (const position of positions) {
      if (!position) return undefined;
      if (position.nextOffset < lowest!.nextOffset) lowest = position;
    }
    const stored = lowest!;
    return {
      offset: stored.nextOffset,
      appliedAll: (records) => this.records.appliedAll(records),
      holds: (record) => {
        try {
          return samePublish(stored, deserialize(record).recordId, record.timestamp.getTime());
        } catch {
          return false;
        }
      },
    };
  };

  private async subscribe(topics: string[]): Promise<void> {
    if (this.stopped) return;
    const fresh = topics.filter((topic) => !this.subscribedTopics.has(topic));
    if (fresh.length === 0) return;
    if (!this.consumer) {
      this.consumer = await this.options.broker.subscribeBatches(
        {
          groupId: this.options.consumerGroup,
          topics,
          fromBeginning: true,
          resumeAt: this.resumeAt,
        },
        (records) => this.records.handleBatch(records),
      );
      if (this.desiredPaused) this.consumer.pause();
    } else {
      await this.consumer.addTopics?.(fresh);
    }
    for (const topic of fresh) this.subscribedTopics.add(topic);
  }
}

/**
 * The record processor: the adapter pipeline of spec section 1, in order, for one broker record:
 * deserialize → contract filter → resolve mapping → idempotency gate → transform →
 * write → (on failure) classify → retry with bounded backoff or dead-letter.
 * It resolves once the record is written, skipped, a duplicate or dead-lettered, so the
 * consumer commits only then; it throws (nothing committed, delivered again) only when
 * the dead letter itself cannot be published or the adapter is stopping mid-retry.
 *
 * `handleBatch` runs the same steps for one partition's batch: per attachment, the
 * target's `writeBatch` applies all of its events as one unit. A retriable failure
 * retries the batch; a batch that still fails (or fails for a non-retriable reason) is
 * applied again record by record through `handle`'s path, so only the records that
 * fail on their own are dead-lettered.
 */
import type { Logger } from '@platform/core';
import type { Broker, BrokerRecord } from '../../broker/broker.js';
import type { AdapterMetrics } from './adapter-metrics.js';
import type { AdapterTarget, TargetEvent, WriteOutcome } from './adapter-target.js';
import type { AppliedPosition, RecordPosition } from './applied-position.js';
import type { AttachmentView } from './attachment.js';
import type { AttachmentRegistry } from './attachment-registry.js';
import { buildDeadLetter, publishDeadLetter } from './dead-letter.js';
import {
  classify,
  describeChain,
  isOutage,
  UnmappableDataError,
  type Classification,
  type ClassificationRule,
  type ErrorType,
} from './failures.js';
import { deserialize, peekContractId, type LocalEnvelope } from './local-envelope.js';
import { backoffMs, type RetryPolicy } from './retry-policy.js';

export interface RecordProcessorDeps {
  target: AdapterTarget;
  registry: AttachmentRegistry;
  broker: Broker;
  logger: Logger;
  consumerGroup: string;
  retry: RetryPolicy;
  metrics: AdapterMetrics;
  rules: ClassificationRule[];
  isStopping(): boolean;
}

export class AdapterStoppingError extends Error {
  override name = 'AdapterStoppingError';
}

export interface RecordProcessor {
  handle(record: BrokerRecord): Promise<void>;
  /** One partition's records in offset order; resolves once every one is applied, skipped or dead-lettered. */
  handleBatch(records: BrokerRecord[]): Promise<void>;
  /** Drops cached mappings of attachments whose config or contract changed. */
  invalidate(attachmentIds: string[]): Promise<void>;
  /** The position the attachment's target stored for a partition of this consumer group (offsets in the target). */
  appliedPosition(
    attachment: AttachmentView,
    topic: string,
    partition: number,
  ): Promise<AppliedPosition | undefined>;
  /**
   * Whether every one of these records (one partition) is decided for each attachment
   * that takes it: applied by its target (`AdapterTarget.appliedOf`), or not its to take
   * (unreadable, or an attachment enabled after it). False when the target cannot tell.
   */
  appliedAll(records: BrokerRecord[]): Promise<boolean>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A batch's outcomes counted into the metrics: one increment a contract and outcome, not
 * one a record (prom-client builds a label key string for every increment: 2 % of the
 * bytes the batch bench allocated, 28 Nov 2026).
 */
function countOutcomes(
  events: TargetEvent[],
  outcomes: WriteOutcome[],
  metrics: AdapterMetrics,
): void {
  const counts = new Map<string, [written: number, duplicate: number, skipped: number]>();
  outcomes.forEach((outcome, i) => {
    const contractId = events[i]!.envelope.contractId;
    let count = counts.get(contractId);
    if (!count) counts.set(contractId, (count = [0, 0, 0]));
    count[outcome === 'written' ? 0 : outcome === 'duplicate' ? 1 : 2] += 1;
  });
  for (const [contractId, [written, duplicate, skipped]] of counts) {
    if (written > 0) metrics.outcome(contractId, 'written', written);
    if (duplicate > 0) metrics.outcome(contractId, 'duplicate', duplicate);
    if (skipped > 0) metrics.outcome(contractId, 'skipped', skipped);
  }
}

export function createRecordProcessor(deps: RecordProcessorDeps): RecordProcessor {
  const { target, registry, logger, consumerGroup, metrics } = deps;
  const positionOf = (record: BrokerRecord): RecordPosition => ({
    consumerGroup,
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    publishedAt: record.timestamp.getTime(),
  });
  // The resolution is cached at once, so `invalidate` during it drops it (set after it
  // ended, it would outlive the change); a failed one is forgotten, so a retry resolves again.
  const mappings = new Map<string, { version: number; mapping: Promise<unknown> }>();

  const resolveMapping = (attachment: AttachmentView): Promise<unknown> => {
    const cached = mappings.get(attachment.attachmentId);
    if (cached && cached.version === attachment.contract.schemaVersion) return cached.mapping;
    const entry = {
      version: attachment.contract.schemaVersion,
      mapping: target.resolveMapping(attachment),
    };
    mappings.set(attachment.attachmentId, entry);
    entry.mapping.catch(
      () =>
        mappings.get(attachment.attachmentId) === entry && mappings.delete(attachment.attachmentId),
    );
    return entry.mapping;
  };

  const deadLetter = async (
    record: BrokerRecord,
    context: { contractId: string | null; traceId: string | null; recordId?: string },
    errorType: ErrorType,
    error: unknown,
    attemptCount: number,
  ) => {
    const entry = buildDeadLetter({
      record,
      contractId: context.contractId,
      traceId: context.traceId,
      errorType,
      errorMessage: describeChain(error),
      failedAdapter: consumerGroup,
      attemptCount,
    });
    await publishDeadLetter(deps.broker, entry);
    metrics.outcome(context.contractId ?? 'unknown', 'dead_lettered');
    logger.warn(
      {
        traceId: context.traceId,
        contractId: context.contractId,
        recordId: context.recordId,
        topic: record.topic,
        offset: record.offset,
        errorType,
        attemptCount,
        err: error,
      },
      'message dead-lettered',
    );
  };

  /** True while an outage that started at `since` is within the budget (sets the start on first use). */
  const withinOutage = (verdict: Classification, outage: { since?: number }) => {
    if (!isOutage(verdict) || deps.retry.outageBudgetMs <= 0) return false;
    outage.since ??= Date.now();
    return Date.now() - outage.since < deps.retry.outageBudgetMs;
  };

  /** One event; `firstAttempt` > 1 when attempts were already spent on it as part of a batch. */
  const apply = async (
    record: BrokerRecord,
    envelope: LocalEnvelope,
    attachment: AttachmentView,
    firstAttempt = 1,
  ) => {
    const log = {
      traceId: envelope.traceId,
      contractId: envelope.contractId,
      recordId: envelope.recordId,
      attachmentId: attachment.attachmentId,
    };
    const outage: { since?: number } = {};
    for (let attempt = firstAttempt; ; attempt += 1) {
      try {
        const lifecycle = attachment.contract.lifecycle[envelope.recordType];
        if (!lifecycle || !attachment.contract.recordTypes.includes(envelope.recordType)) {
          throw new UnmappableDataError(
            `record type ${envelope.recordType} is not declared by contract ${envelope.contractId}`,
          );
        }
        const event: TargetEvent = {
          envelope,
          lifecycle,
          attachment,
          position: positionOf(record),
        };
        const mapping = await resolveMapping(attachment);
        if (await target.isDuplicate(mapping, event)) {
          metrics.outcome(envelope.contractId, 'duplicate');
          logger.debug(log, 'duplicate skipped');
          return;
        }
        const row = target.transform(mapping, event);
        const outcome = await target.write(mapping, row, event);
        metrics.outcome(
          envelope.contractId,
          outcome === 'written' ? 'written' : outcome === 'duplicate' ? 'duplicate' : 'skipped',
        );
        logger.debug({ ...log, outcome }, 'record applied');
        return;
      } catch (error) {
        const verdict = classify(error, deps.rules);
        const context = {
          contractId: envelope.contractId,
          traceId: envelope.traceId,
          recordId: envelope.recordId,
        };
        if (!verdict.retriable)
          return deadLetter(record, context, verdict.errorType, error, attempt);
        if (attempt >= deps.retry.maxAttempts && !withinOutage(verdict, outage))
          return deadLetter(record, context, 'RETRY_EXHAUSTED', error, attempt);
        metrics.retried(envelope.contractId);
        logger.warn(
          { ...log, attempt, rule: verdict.rule, err: error },
          'retriable failure; retrying',
        );
        await sleep(backoffMs(deps.retry, attempt));
        if (deps.isStopping())
          throw new AdapterStoppingError('adapter stopping; message left uncommitted');
      }
    }
  };

  /** Events of one attachment, in offset order, as one batch; record by record when that fails. */
  const applyBatch = async (
    attachment: AttachmentView,
    items: Array<{ record: BrokerRecord; envelope: LocalEnvelope }>,
  ) => {
    const writeBatch = target.writeBatch?.bind(target);
    const declared = items.filter(
      ({ envelope }) =>
        attachment.contract.recordTypes.includes(envelope.recordType) &&
        attachment.contract.lifecycle[envelope.recordType],
    );
    if (!writeBatch || declared.length !== items.length || items.length < 2) {
      for (const { record, envelope } of items) await apply(record, envelope, attachment);
      return;
    }
    const events: TargetEvent[] = items.map(({ record, envelope }) => ({
      envelope,
      lifecycle: attachment.contract.lifecycle[envelope.recordType]!,
      attachment,
      position: positionOf(record),
    }));
    let fallbackAttempt = 1;
    const outage: { since?: number } = {};
    for (let attempt = 1; ; attempt += 1) {
      let failure: unknown;
      try {
        const outcomes = await writeBatch(await resolveMapping(attachment), events);
        countOutcomes(events, outcomes, metrics);
        // Following a record through the chaos run (`CHAOS_LOG_LEVEL=debug`): where each
        // of a batch's records ended. Built only when debug is on: a string per record.
        if (logger.isLevelEnabled('debug'))
          logger.debug(
            {
              attachmentId: attachment.attachmentId,
              topic: items[0]!.record.topic,
              partition: items[0]!.record.partition,
              outcomes: items.map(
                ({ record, envelope }, i) =>
                  `${record.offset}:${envelope.recordId.slice(0, 8)}:${outcomes[i]}`,
              ),
            },
            'batch applied',
          );
        return;
      } catch (error) {
        failure = error;
      }
      const verdict = classify(failure, deps.rules);
      if (!verdict.retriable) break;
      metrics.retried(attachment.contractId);
      logger.warn(
        {
          contractId: attachment.contractId,
          attachmentId: attachment.attachmentId,
          records: events.length,
          attempt,
          rule: verdict.rule,
          err: failure,
        },
        'retriable batch failure; retrying',
      );
      await sleep(backoffMs(deps.retry, attempt));
      if (deps.isStopping())
        throw new AdapterStoppingError('adapter stopping; batch left uncommitted');
      // The last attempt is made record by record, so each record counts every attempt;
      // while the target is down (within the outage budget) the batch is held and tried again.
      if (attempt + 1 >= deps.retry.maxAttempts && !withinOutage(verdict, outage)) {
        fallbackAttempt = Math.min(attempt + 1, deps.retry.maxAttempts);
        break;
      }
    }
    // Find the records that fail on their own: each gets its own classification and dead letter.
    for (const { record, envelope } of items)
      await apply(record, envelope, attachment, fallbackAttempt);
  };

  return {
    async handleBatch(records) {
      const byAttachment = new Map<
        string,
        {
          attachment: AttachmentView;
          items: Array<{ record: BrokerRecord; envelope: LocalEnvelope }>;
        }
      >();
      for (const record of records) {
        let envelope: LocalEnvelope;
        try {
          envelope = deserialize(record);
        } catch (error) {
          const verdict = classify(error, deps.rules);
          await deadLetter(
            record,
            { contractId: peekContractId(record), traceId: record.headers.traceId ?? null },
            verdict.errorType,
            error,
            1,
          );
          continue;
        }
        const attachments = registry.enabledFor(envelope.contractId, record.timestamp.getTime());
        if (attachments.length === 0) {
          metrics.outcome(envelope.contractId, 'skipped');
          logger.debug(
            { recordId: envelope.recordId, topic: record.topic, offset: record.offset },
            'no enabled attachment; skipped',
          );
          continue;
        }
        for (const attachment of attachments) {
          const group = byAttachment.get(attachment.attachmentId) ?? { attachment, items: [] };
          group.items.push({ record, envelope });
          byAttachment.set(attachment.attachmentId, group);
        }
      }
      for (const { attachment, items } of byAttachment.values())
        await applyBatch(attachment, items);
    },
    async handle(record) {
      let envelope: LocalEnvelope;
      try {
        envelope = deserialize(record);
      } catch (error) {
        const verdict = classify(error, deps.rules);
        const traceId = record.headers.traceId ?? null;
        return deadLetter(
          record,
          { contractId: peekContractId(record), traceId },
          verdict.errorType,
          error,
          1,
        );
      }
      const attachments = registry.enabledFor(envelope.contractId, record.timestamp.getTime());
      if (attachments.length === 0) {
        metrics.outcome(envelope.contractId, 'skipped');
        logger.debug(
          {
            traceId: envelope.traceId,
            contractId: envelope.contractId,
            recordId: envelope.recordId,
          },
          'no enabled attachment; skipped',
        );
        return;
      }
      for (const attachment of attachments) await apply(record, envelope, attachment);
    },
    async appliedAll(records) {
      const appliedOf = target.appliedOf?.bind(target);
      if (!appliedOf) return false;
      const byAttachment = new Map<string, { attachment: AttachmentView; events: TargetEvent[] }>();
      for (const record of records) {
        let envelope: LocalEnvelope;
        try {
          envelope = deserialize(record);
        } catch {
          continue; // dead-lettered when read, never a target's
        }
        for (const attachment of registry.enabledFor(
          envelope.contractId,
          record.timestamp.getTime(),
        )) {
          const lifecycle = attachment.contract.lifecycle[envelope.recordType];
          if (!lifecycle) continue;
          const group = byAttachment.get(attachment.attachmentId) ?? { attachment, events: [] };
          group.events.push({ envelope, lifecycle, attachment, position: positionOf(record) });
          byAttachment.set(attachment.attachmentId, group);
        }
      }
      for (const { attachment, events } of byAttachment.values()) {
        const applied = await appliedOf(await resolveMapping(attachment), events);
        if (applied.size < events.length) return false;
      }
      return true;
    },
    async appliedPosition(attachment, topic, partition) {
      if (!target.appliedPosition) return undefined;
      return target.appliedPosition(await resolveMapping(attachment), {
        consumerGroup,
        topic,
        partition,
      });
    },
    async invalidate(attachmentIds) {
      for (const id of attachmentIds) {
        mappings.delete(id);
        await target.release?.(id);
      }
    },
  };
}

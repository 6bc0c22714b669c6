/** Adapter metrics, labelled by adapter and contractId only (never by record id). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { contractOfTopic } from './attachment.js';
import type { Assignment } from '../../broker/broker.js';
import { overrideTarget, type AdapterTarget } from './adapter-target.js';

export type Outcome = 'written' | 'skipped' | 'duplicate' | 'dead_lettered';

export interface AdapterMetrics {
  /** `count` records (one unless given) of a contract ended so. */
  outcome(contractId: string, outcome: Outcome, count?: number): void;
  retried(contractId: string): void;
}

export function createAdapterMetrics(
  registry: Registry,
  adapter: string,
  assignments: () => Assignment[],
): AdapterMetrics {
  const records = new Counter({
    name: 'integration_adapter_records_total',
    help: 'Messages handled by the adapter, by contract and outcome (written, skipped, duplicate, dead_lettered).',
    labelNames: ['adapter', 'contract_id', 'outcome'],
    registers: [registry],
  });
  const retries = new Counter({
    name: 'integration_adapter_retries_total',
    help: 'Retried attempts after a retriable failure, by contract.',
    labelNames: ['adapter', 'contract_id'],
    registers: [registry],
  });
  new Gauge({
    name: 'integration_adapter_consumer_lag',
    help: 'Messages published but not yet committed by the adapter, by contract.',
    labelNames: ['adapter', 'contract_id'],
    registers: [registry],
    collect() {
      this.reset();
      const lag = new Map<string, number>();
      for (const a of assignments()) {
        const contract = contractOfTopic(a.topic);
        lag.set(contract, (lag.get(contract) ?? 0) + Math.max(0, a.endOffset - a.committedOffset));
      }
      for (const [contract, value] of lag) this.labels(adapter, contract).set(value);
    },
  });
  return {
    outcome: (contractId, outcome, count = 1) =>
      records.labels(adapter, contractId, outcome).inc(count),
    retried: (contractId) => retries.labels(adapter, contractId).inc(),
  };
}

/**
 * The target, observed: the first record written for each attachment (by this process)
 * adds the time since the attachment was created or last changed to
 * `integration_attachment_first_write_seconds`, the delay an operator sees between
 * attaching and the first row, line or delivery.
 */
export function observeFirstWrites(target: AdapterTarget, registry: Registry): AdapterTarget {
  const histogram = new Histogram({
    name: 'integration_attachment_first_write_seconds',
    help: 'Time from an attachment being created or changed to the first record this adapter wrote for it.',
    labelNames: ['adapter'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [registry],
  });
  const seen = new Map<string, string>();
  const observe = (attachment: {
    attachmentId: string;
    updatedAt?: string;
    createdAt?: string;
  }) => {
    const since = attachment.updatedAt ?? attachment.createdAt;
    if (!since || seen.get(attachment.attachmentId) === since) return;
    seen.set(attachment.attachmentId, since);
    histogram.labels(target.type).observe(Math.max(0, (Date.now() - Date.parse(since)) / 1000));
  };
  const write: AdapterTarget['write'] = async (mapping, row, event) => {
    const outcome = await target.write(mapping, row, event);
    if (outcome === 'written') observe(event.attachment);
    return outcome;
  };
  const writeBatch: AdapterTarget['writeBatch'] = target.writeBatch
    ? async (mapping, events) => {
        const outcomes = await target.writeBatch!(mapping, events);
        outcomes.forEach((outcome, i) => outcome === 'written' && observe(events[i]!.attachment));
        return outcomes;
      }
    : undefined;
  return overrideTarget(target, { write, writeBatch });
}

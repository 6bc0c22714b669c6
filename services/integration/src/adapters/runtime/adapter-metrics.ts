/** Adapter metrics, labelled by adapter and contractId only (never by record id). */
import { Counter, Gauge, type Registry } from 'prom-client';
import { contractOfTopic } from './attachment.js';
import type { Assignment } from '../../broker/broker.js';

export type Outcome = 'written' | 'skipped' | 'duplicate' | 'dead_lettered';

export interface AdapterMetrics {
  outcome(contractId: string, outcome: Outcome): void;
  retried(contractId: string): void;
}

export function createAdapterMetrics(registry: Registry, adapter: string, assignments: () => Assignment[]): AdapterMetrics {
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
    outcome: (contractId, outcome) => records.labels(adapter, contractId, outcome).inc(),
    retried: (contractId) => retries.labels(adapter, contractId).inc(),
  };
}

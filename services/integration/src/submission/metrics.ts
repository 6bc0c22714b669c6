/**
 * Submission metrics by `contractId` (never by record id, so cardinality stays bounded by
 * the registered contracts): submitted, published, rejected by reason, publish latency.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

export type Operation = 'create' | 'update' | 'delete';

export interface SubmissionMetrics {
  submitted(contractId: string, operation: Operation): void;
  published(contractId: string, operation: Operation, seconds: number): void;
  rejected(contractId: string, operation: Operation, reason: string): void;
}

export function createSubmissionMetrics(registry: Registry): SubmissionMetrics {
  const submitted = new Counter({
    name: 'integration_records_submitted_total',
    help: 'Records submitted for a known contract, by contract and operation.',
    labelNames: ['contract_id', 'operation'],
    registers: [registry],
  });
  const published = new Counter({
    name: 'integration_records_published_total',
    help: 'Records published to the broker, by contract and operation.',
    labelNames: ['contract_id', 'operation'],
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'integration_records_rejected_total',
    help: 'Submissions refused, by contract, operation and reason.',
    labelNames: ['contract_id', 'operation', 'reason'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'integration_publish_duration_seconds',
    help: 'Time to publish one envelope, by contract.',
    labelNames: ['contract_id'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  return {
    submitted: (contractId, operation) => submitted.inc({ contract_id: contractId, operation }),
    published: (contractId, operation, seconds) => {
      published.inc({ contract_id: contractId, operation });
      latency.observe({ contract_id: contractId }, seconds);
    },
    rejected: (contractId, operation, reason) =>
      rejected.inc({ contract_id: contractId, operation, reason }),
  };
}

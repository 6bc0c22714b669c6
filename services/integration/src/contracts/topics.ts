/**
 * Topic names and partition counts (spec section 2.7). Per-contract topics derive from
 * the contract id and the lifecycle class; update and delete topics exist only when the
 * contract declares such record types.
 */
import type { TopicSpec } from '../broker/broker.js';
import { declaredClasses, type ContractDefinition, type LifecycleClass } from './contract.js';

/** Partitions of every per-contract topic (the spec leaves it open; same as `intern.created`). */
export const CONTRACT_TOPIC_PARTITIONS = 3;

/** Dead letters of every contract. */
export const DEAD_LETTER_TOPIC: TopicSpec = { name: 'platform.dlq', partitions: 1 };
/** First releases: flat intern messages, still read by the adapters (issue 7). */
export const LEGACY_INTERN_TOPIC: TopicSpec = { name: 'intern.created', partitions: 3 };
/** First releases' dead-letter topic; provisioned so old tooling finds it. */
export const LEGACY_DEAD_LETTER_TOPIC: TopicSpec = { name: 'intern.dlq', partitions: 1 };

const SUFFIX: Record<LifecycleClass, string> = {
  create: 'created',
  update: 'updated',
  tombstone: 'deleted',
};

export function topicName(contractId: string, lifecycleClass: LifecycleClass): string {
  return `${contractId}.${SUFFIX[lifecycleClass]}`;
}

/** The topics a contract's declared lifecycle classes need, and only those. */
export function contractTopics(contract: ContractDefinition): TopicSpec[] {
  return declaredClasses(contract).map((cls) => ({
    name: topicName(contract.contractId, cls),
    partitions: CONTRACT_TOPIC_PARTITIONS,
  }));
}

/** The topic an envelope of `recordType` goes to, or undefined for a type the contract does not declare. */
export function topicForRecordType(
  contract: ContractDefinition,
  recordType: string,
): string | undefined {
  const cls = contract.lifecycle[recordType];
  return cls && contract.recordTypes.includes(recordType)
    ? topicName(contract.contractId, cls)
    : undefined;
}

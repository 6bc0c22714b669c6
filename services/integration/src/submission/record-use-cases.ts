/**
 * Submission use cases: create, update (full state) and delete (tombstone) a record of a
 * contract. Each validates, builds the envelope and checks it against the envelope schema
 * (500 and nothing published when that fails), publishes it keyed by the natural key to
 * the topic of its lifecycle class (503 and nothing published when the broker is down),
 * and keeps the read model in step. Nothing here knows any target format (spec rule 1).
 */
import type { Logger, SqlDatabase } from '@platform/core';
import { BrokerUnavailableError, type Broker } from '../broker/broker.js';
import { recordTypeOf, type ContractDefinition, type LifecycleClass } from '../contracts/contract.js';
import { findContract } from '../contracts/contract-store.js';
import { buildEnvelope, envelopeViolations, type Envelope } from '../contracts/envelope.js';
import { naturalKeyOf, tombstonePayload, validatePayload, type Payload } from '../contracts/payload.js';
import { contractTopics, topicName } from '../contracts/topics.js';
import { errors } from '../errors.js';
import type { KeyedMutex } from './keyed-mutex.js';
import type { Operation, SubmissionMetrics } from './metrics.js';
import { activate, applyUpdate, findActive, markDeleted, releaseCreate, reserveCreate } from './read-model.js';

export interface SubmissionDeps {
  db: SqlDatabase;
  broker: Broker;
  logger: Logger;
  metrics: SubmissionMetrics;
  /** New record ids (UUIDs). */
  newRecordId: () => string;
  /** Server clock for `occurredAt`. */
  now: () => Date;
  mutex: KeyedMutex;
}

export interface Accepted {
  recordId: string;
  contractId: string;
  recordType: string;
  naturalKey: string;
  schemaVersion: number;
  traceId: string;
  topic: string;
}

export async function loadContract(db: SqlDatabase, contractId: string): Promise<ContractDefinition> {
  const stored = await findContract(db, contractId);
  if (!stored) throw errors.CONTRACT_NOT_FOUND({ detail: `unknown contractId: ${contractId}` });
  return stored.contract;
}

function payloadOrThrow(deps: SubmissionDeps, contract: ContractDefinition, operation: Operation, input: unknown): Payload {
  const check = validatePayload(contract, input);
  if (check.ok) return check.payload;
  deps.metrics.rejected(contract.contractId, operation, 'invalid');
  const first = check.errors[0]!;
  throw errors.PAYLOAD_INVALID({
    detail: `payload fails contract validation: ${first.field ? `${first.field} ` : ''}${first.message}`,
    body: { errors: check.errors },
  });
}

function envelopeFor(deps: SubmissionDeps, contract: ContractDefinition, cls: LifecycleClass, operation: Operation, payload: Payload, traceId: string, naturalKey?: string): Envelope {
  const recordType = recordTypeOf(contract, cls)!;
  const envelope = buildEnvelope(contract, recordType, payload, { recordId: deps.newRecordId(), traceId, occurredAt: deps.now() }, naturalKey);
  const violations = envelopeViolations(contract, cls, envelope);
  if (violations.length > 0) {
    deps.metrics.rejected(contract.contractId, operation, 'envelope_invalid');
    deps.logger.error({ critical: true, traceId, contractId: contract.contractId, violations }, 'CRITICAL: built envelope fails its schema; nothing published');
    throw errors.ENVELOPE_INVALID();
  }
  return envelope;
}

async function publish(deps: SubmissionDeps, contract: ContractDefinition, cls: LifecycleClass, operation: Operation, envelope: Envelope): Promise<string> {
  const topic = topicName(contract.contractId, cls);
  const headers = { traceId: envelope.traceId, contractId: envelope.contractId, recordType: envelope.recordType, schemaVersion: String(envelope.schemaVersion) };
  const started = performance.now();
  const send = () => deps.broker.publish(topic, envelope.naturalKey, JSON.stringify(envelope), headers);
  try {
    try {
      await send();
    } catch (error) {
      // A topic lost by the broker (e.g. a NATS server reset) is provisioned again once.
      if (!(error instanceof Error && error.name === 'UnknownTopicError')) throw error;
      for (const spec of contractTopics(contract)) await deps.broker.ensureTopic(spec);
      await send();
    }
  } catch (error) {
    deps.metrics.rejected(contract.contractId, operation, 'broker_unavailable');
    deps.logger.warn({ err: error, traceId: envelope.traceId, contractId: contract.contractId, topic }, 'publish failed; nothing published');
    if (error instanceof BrokerUnavailableError) throw errors.BROKER_UNAVAILABLE({ cause: error });
    throw error;
  }
  deps.metrics.published(contract.contractId, operation, (performance.now() - started) / 1000);
  deps.logger.info({ traceId: envelope.traceId, contractId: contract.contractId, recordId: envelope.recordId, topic, recordType: envelope.recordType }, 'record published');
  return topic;
}

const accepted = (envelope: Envelope, topic: string): Accepted => ({
  recordId: envelope.recordId,
  contractId: envelope.contractId,
  recordType: envelope.recordType,
  naturalKey: envelope.naturalKey,
  schemaVersion: envelope.schemaVersion,
  traceId: envelope.traceId,
  topic,
});

export async function createRecord(deps: SubmissionDeps, contractId: string, input: unknown, traceId: string): Promise<Accepted> {
  const contract = await loadContract(deps.db, contractId);
  deps.metrics.submitted(contractId, 'create');
  const payload = payloadOrThrow(deps, contract, 'create', input);
  const envelope = envelopeFor(deps, contract, 'create', 'create', payload, traceId);
  return deps.mutex.run(`${contractId}\u0000${envelope.naturalKey}`, async () => {
    const reservation = await reserveCreate(deps.db, envelope);
    if (reservation === 'exists') {
      deps.metrics.rejected(contractId, 'create', 'conflict');
      throw errors.RECORD_EXISTS({ detail: `a record with natural key ${envelope.naturalKey} already exists; use PUT to change it` });
    }
    let topic: string;
    try {
      topic = await publish(deps, contract, 'create', 'create', envelope);
    } catch (error) {
      await releaseCreate(deps.db, envelope, reservation);
      throw error;
    }
    await activate(deps.db, envelope);
    return accepted(envelope, topic);
  });
}

function requireClass(deps: SubmissionDeps, contract: ContractDefinition, cls: 'update' | 'tombstone', operation: Operation): void {
  if (recordTypeOf(contract, cls)) return;
  deps.metrics.rejected(contract.contractId, operation, 'no_record_type');
  throw cls === 'update' ? errors.NO_UPDATE_TYPE() : errors.NO_TOMBSTONE_TYPE();
}

export async function updateRecord(deps: SubmissionDeps, contractId: string, naturalKey: string, input: unknown, traceId: string): Promise<Accepted> {
  const contract = await loadContract(deps.db, contractId);
  deps.metrics.submitted(contractId, 'update');
  requireClass(deps, contract, 'update', 'update');
  return deps.mutex.run(`${contractId}\u0000${naturalKey}`, async () => {
    if (!(await findActive(deps.db, contractId, naturalKey))) {
      deps.metrics.rejected(contractId, 'update', 'not_found');
      throw errors.RECORD_NOT_FOUND({ detail: `record ${naturalKey} does not exist` });
    }
    const payload = payloadOrThrow(deps, contract, 'update', input);
    if (naturalKeyOf(contract, payload) !== naturalKey) {
      deps.metrics.rejected(contractId, 'update', 'invalid');
      const fieldErrors = contract.naturalKey.fields.map((field) => ({ field, message: `must match the natural key in the path (${naturalKey})` }));
      throw errors.PAYLOAD_INVALID({ detail: `payload fails contract validation: ${fieldErrors[0]!.field} ${fieldErrors[0]!.message}`, body: { errors: fieldErrors } });
    }
    const envelope = envelopeFor(deps, contract, 'update', 'update', payload, traceId, naturalKey);
    const topic = await publish(deps, contract, 'update', 'update', envelope);
    await applyUpdate(deps.db, envelope);
    return accepted(envelope, topic);
  });
}

export async function deleteRecord(deps: SubmissionDeps, contractId: string, naturalKey: string, traceId: string): Promise<Accepted> {
  const contract = await loadContract(deps.db, contractId);
  deps.metrics.submitted(contractId, 'delete');
  requireClass(deps, contract, 'tombstone', 'delete');
  return deps.mutex.run(`${contractId}\u0000${naturalKey}`, async () => {
    const current = await findActive(deps.db, contractId, naturalKey);
    if (!current) {
      deps.metrics.rejected(contractId, 'delete', 'not_found');
      throw errors.RECORD_NOT_FOUND({ detail: `record ${naturalKey} does not exist` });
    }
    const envelope = envelopeFor(deps, contract, 'tombstone', 'delete', tombstonePayload(contract, current.payload), traceId, naturalKey);
    const topic = await publish(deps, contract, 'tombstone', 'delete', envelope);
    await markDeleted(deps.db, envelope);
    return accepted(envelope, topic);
  });
}

/**
 * Submission use cases: create, update (full state) and delete (tombstone) a record of a
 * contract. Each validates, builds the envelope and checks it against the envelope schema
 * (500 and nothing published when that fails), writes it to the intake outbox in the
 * statement that changes the read model (outbox.ts), publishes it keyed by the natural
 * key to the topic of its lifecycle class, and marks it sent after the broker's ack
 * (which applies it to the read model). When the broker is down the event is taken back
 * (503, nothing published); when the database fails after the outbox row was written,
 * the relay (outbox-relay.ts) finishes it and the answer is 202: the event is durable.
 * Nothing here knows any target format (spec rule 1).
 */
import {
  isAppError,
  MicroBatcher,
  type AppError,
  type Logger,
  type SqlDatabase,
} from '@platform/core';
import { BrokerUnavailableError, MessageTooLargeError, type Broker } from '../broker/broker.js';
import {
  recordTypeOf,
  type ContractDefinition,
  type LifecycleClass,
} from '../contracts/contract.js';
import { buildEnvelope, type Envelope, type EnvelopeValidator } from '../contracts/envelope.js';
import {
  naturalKeyOf,
  tombstonePayload,
  validatePayload,
  type Payload,
  type PayloadLimits,
} from '../contracts/payload.js';
import { topicName } from '../contracts/topics.js';
import { RETRY_AFTER_SECONDS } from '../dependency-errors.js';
import { integrationErrors } from '../errors.js';
import type { ContractCache } from './contract-cache.js';
import type { KeyedMutex } from './keyed-mutex.js';
import type { Operation, SubmissionMetrics } from './metrics.js';
import { revisionsAfterLostAnswer } from './in-doubt-write.js';
import { discardUnsent, enqueueEvent, type SentPosition } from './outbox.js';
import type { OutboxRelay } from './outbox-relay.js';
import { publishEnvelope, withRevision } from './publish-envelope.js';
import {
  findActive,
  reserveAndMarkSent,
  type QueuedCreate,
  type Reservation,
} from './read-model.js';

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
  contracts: ContractCache;
  intake: IntakeWriter;
  /** Field lengths where a contract declares none. */
  payloadLimits: PayloadLimits;
  /** Checks each built envelope against its contract's envelope schema. */
  envelopes: EnvelopeValidator;
}

/**
 * The intake writes, one call (`intake_turn`) for all the events in flight at once:
 * published events marked sent, then creates reserved and queued in the outbox. `relay`
 * finishes what a request could not.
 */
export interface IntakeWriter {
  owner: string;
  reserve: Pick<MicroBatcher<QueuedCreate, Reservation>, 'run'>;
  sent: Pick<MicroBatcher<SentPosition, void>, 'run'>;
  relay: Pick<OutboxRelay, 'strand'>;
}

/** An item of an intake turn: a create to reserve or a published event to mark sent. */
type TurnItem = { create: QueuedCreate; sent?: undefined } | { sent: SentPosition };

export function createIntakeWriter(
  db: SqlDatabase,
  owner: string,
  relay: Pick<OutboxRelay, 'strand'>,
): IntakeWriter {
  // One batcher for both: the marks of the events published since the last turn ride
  // with the next creates (one round trip and one commit a turn, not two).
  const turn = new MicroBatcher<TurnItem, Reservation | undefined>(async (items) => {
    const creates: QueuedCreate[] = [];
    const positions: SentPosition[] = [];
    for (const item of items) {
      if (item.sent) positions.push(item.sent);
      else creates.push(item.create);
    }
    const reservations = await reserveAndMarkSent(db, creates, positions, owner);
    let next = 0;
    return items.map((item) => (item.sent ? undefined : reservations[next++]));
  });
  return {
    owner,
    reserve: {
      run: (creates) => turn.run(creates.map((create) => ({ create }))) as Promise<Reservation[]>,
    },
    sent: {
      run: async (positions) => {
        await turn.run(positions.map((sent) => ({ sent })));
        return positions.map(() => undefined);
      },
    },
    relay,
  };
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

export async function loadContract(
  deps: Pick<SubmissionDeps, 'contracts'>,
  contractId: string,
): Promise<ContractDefinition> {
  const contract = await deps.contracts.get(contractId);
  if (!contract)
    throw integrationErrors.CONTRACT_NOT_FOUND({ detail: `unknown contractId: ${contractId}` });
  return contract;
}

function payloadOrThrow(
  deps: SubmissionDeps,
  contract: ContractDefinition,
  operation: Operation,
  input: unknown,
): Payload {
  const check = validatePayload(contract, input, deps.payloadLimits);
  if (check.ok) return check.payload;
  deps.metrics.rejected(contract.contractId, operation, 'invalid');
  const first = check.errors[0]!;
  throw integrationErrors.PAYLOAD_INVALID({
    detail: `payload fails contract validation: ${first.field ? `${first.field} ` : ''}${first.message}`,
    body: { errors: check.errors },
  });
}

function envelopeFor(
  deps: SubmissionDeps,
  contract: ContractDefinition,
  cls: LifecycleClass,
  operation: Operation,
  payload: Payload,
  traceId: string,
  naturalKey?: string,
): Envelope {
  const recordType = recordTypeOf(contract, cls)!;
  const envelope = buildEnvelope(
    contract,
    recordType,
    payload,
    { recordId: deps.newRecordId(), traceId, occurredAt: deps.now() },
    naturalKey,
  );
  const violations = deps.envelopes.violations(contract, cls, envelope);
  if (violations.length > 0) {
    deps.metrics.rejected(contract.contractId, operation, 'envelope_invalid');
    deps.logger.error(
      { critical: true, traceId, contractId: contract.contractId, violations },
      'CRITICAL: built envelope fails its schema; nothing published',
    );
    throw integrationErrors.ENVELOPE_INVALID();
  }
  return envelope;
}

async function publish(
  deps: SubmissionDeps,
  contract: ContractDefinition,
  cls: LifecycleClass,
  operation: Operation,
  envelope: Envelope,
  body?: string,
): Promise<SentPosition | InDoubt> {
  const topic = topicName(contract.contractId, cls);
  const started = performance.now();
  let result;
  try {
    result = await publishEnvelope(
      deps.broker,
      async () => contract,
      topic,
      envelope,
      envelope.recordId,
      body,
    );
  } catch (error) {
    if (error instanceof BrokerUnavailableError && error.inDoubt) {
      // The broker may hold it: only the relay may finish it (same de-dup id), never a 503.
      deps.logger.warn(
        { err: error, traceId: envelope.traceId, recordId: envelope.recordId, topic },
        'publish unanswered; the outbox relay finishes it',
      );
      return { recordId: envelope.recordId, inDoubt: true };
    }
    if (error instanceof MessageTooLargeError) {
      deps.metrics.rejected(contract.contractId, operation, 'too_large');
      throw integrationErrors.RECORD_TOO_LARGE({
        detail: `record too large: its envelope is ${error.bytes} bytes, the broker takes at most ${error.maxBytes}`,
        cause: error,
      });
    }
    deps.metrics.rejected(contract.contractId, operation, 'broker_unavailable');
    deps.logger.warn(
      { err: error, traceId: envelope.traceId, contractId: contract.contractId, topic },
      'publish failed; nothing published',
    );
    if (error instanceof BrokerUnavailableError)
      throw integrationErrors.BROKER_UNAVAILABLE({
        cause: error,
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      });
    throw error;
  }
  deps.metrics.published(contract.contractId, operation, (performance.now() - started) / 1000);
  deps.logger.info(
    {
      traceId: envelope.traceId,
      contractId: contract.contractId,
      recordId: envelope.recordId,
      topic,
      recordType: envelope.recordType,
    },
    'record published',
  );
  return { recordId: envelope.recordId, partition: result.partition, offset: result.offset };
}

/** A publish whose outcome is unknown (sent, unanswered): the event stays in the outbox. */
interface InDoubt {
  recordId: string;
  inDoubt: true;
}

/**
 * Finishes events after their publishes: the acknowledged ones are marked sent (one
 * statement for all in flight), the failed ones taken back from the outbox. Returns the
 * failed ones that stay queued — a relay sent them meanwhile, or the database could not
 * take them back — which the relay delivers: they are accepted. What the database could
 * not finish goes to the relay.
 */
async function settle(
  deps: SubmissionDeps,
  published: SentPosition[],
  failed: string[],
  inDoubt: string[] = [],
): Promise<Set<string>> {
  if (inDoubt.length > 0) deps.intake.relay.strand(inDoubt);
  try {
    await deps.intake.sent.run(published);
  } catch (error) {
    deps.logger.warn({ err: error }, 'published events not marked sent; the outbox relay will');
    deps.intake.relay.strand(published.map((p) => p.recordId));
  }
  if (failed.length === 0) return new Set();
  try {
    const discarded = await discardUnsent(deps.db, failed);
    return new Set(failed.filter((id) => !discarded.has(id.toLowerCase())));
  } catch (error) {
    deps.logger.warn(
      { err: error },
      'failed publishes not taken back; the outbox relay sends them',
    );
    deps.intake.relay.strand(failed);
    return new Set(failed);
  }
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

export type IntakeResult = { ok: true; accepted: Accepted } | { ok: false; error: AppError };

/**
 * Creates many records of one contract: each validated on its own (a bad one does not
 * stop its neighbours), the keys reserved and the envelopes queued in the outbox in one
 * statement, the envelopes published side by side (each with its recordId as the
 * broker's de-duplication id), the published ones marked sent (and so activated) in one
 * statement and the failed ones taken back. One result per input, in order. Throws only for the whole call (unknown contract, unexpected failure).
 */
export async function createRecords(
  deps: SubmissionDeps,
  contractId: string,
  inputs: unknown[],
  traceId: string,
): Promise<IntakeResult[]> {
  const contract = await loadContract(deps, contractId);
  const results: IntakeResult[] = new Array(inputs.length);
  const built: Array<{ index: number; envelope: Envelope; storedJson: string }> = [];
  inputs.forEach((input, index) => {
    deps.metrics.submitted(contractId, 'create');
    try {
      const payload = payloadOrThrow(deps, contract, 'create', input);
      const envelope = envelopeFor(deps, contract, 'create', 'create', payload, traceId);
      // Serialised once: the outbox stores this text and the broker gets it with the revision.
      built.push({ index, envelope, storedJson: JSON.stringify(envelope) });
    } catch (error) {
      if (!isAppError(error)) throw error;
      results[index] = { ok: false, error };
    }
  });
  const topic = topicName(contractId, 'create');
  const queued = built.map(({ envelope, storedJson }) => ({ envelope, topic, storedJson }));
  const reservations = await deps.intake.reserve.run(queued).catch(async (error: unknown) => {
    // The answer was lost, the rows may be in: what the outbox holds is reserved.
    const held = await revisionsAfterLostAnswer(
      deps.db,
      error,
      built.map((b) => b.envelope.recordId),
    );
    return built.map(({ envelope }): Reservation => {
      const revision = held.get(envelope.recordId.toLowerCase());
      return revision === undefined ? { state: 'exists' } : { state: 'new', revision };
    });
  });
  const reserved = built.filter(({ index, envelope }, i) => {
    const reservation = reservations[i]!;
    if (reservation.state !== 'exists') {
      envelope.revision = reservation.revision;
      return true;
    }
    deps.metrics.rejected(contractId, 'create', 'conflict');
    results[index] = {
      ok: false,
      error: integrationErrors.RECORD_EXISTS({
        detail: `a record with natural key ${envelope.naturalKey} already exists; use PUT to change it`,
      }),
    };
    return false;
  });
  const sent = await Promise.all(
    reserved.map(({ envelope, storedJson }) =>
      publish(
        deps,
        contract,
        'create',
        'create',
        envelope,
        withRevision(storedJson, envelope.revision),
      ).then(
        (position) => ({ position }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
  const positions = sent.flatMap((s) =>
    'position' in s && !('inDoubt' in s.position) ? [s.position] : [],
  );
  const inDoubt = sent.flatMap((s) =>
    'position' in s && 'inDoubt' in s.position ? [s.position.recordId] : [],
  );
  const failedIds = reserved.filter((_, i) => 'error' in sent[i]!).map((r) => r.envelope.recordId);
  const kept = await settle(deps, positions, failedIds, inDoubt);
  const unexpected = sent.find(
    (s): s is { error: unknown } => 'error' in s && !isAppError(s.error),
  );
  if (unexpected) throw unexpected.error;
  reserved.forEach(({ index, envelope }, i) => {
    const outcome = sent[i]!;
    results[index] =
      'position' in outcome || kept.has(envelope.recordId)
        ? { ok: true, accepted: accepted(envelope, topic) }
        : { ok: false, error: outcome.error as AppError };
  });
  return results;
}

export async function createRecord(
  deps: SubmissionDeps,
  contractId: string,
  input: unknown,
  traceId: string,
): Promise<Accepted> {
  const [result] = await createRecords(deps, contractId, [input], traceId);
  if (!result!.ok) throw result!.error;
  return result!.accepted;
}

function requireClass(
  deps: SubmissionDeps,
  contract: ContractDefinition,
  cls: 'update' | 'tombstone',
  operation: Operation,
): void {
  if (recordTypeOf(contract, cls)) return;
  deps.metrics.rejected(contract.contractId, operation, 'no_record_type');
  throw cls === 'update'
    ? integrationErrors.NO_UPDATE_TYPE()
    : integrationErrors.NO_TOMBSTONE_TYPE();
}

export async function updateRecord(
  deps: SubmissionDeps,
  contractId: string,
  naturalKey: string,
  input: unknown,
  traceId: string,
): Promise<Accepted> {
  const contract = await loadContract(deps, contractId);
  deps.metrics.submitted(contractId, 'update');
  requireClass(deps, contract, 'update', 'update');
  return deps.mutex.run(`${contractId}\u0000${naturalKey}`, async () => {
    const current = await findActive(deps.db, contractId, naturalKey);
    if (!current) {
      deps.metrics.rejected(contractId, 'update', 'not_found');
      throw integrationErrors.RECORD_NOT_FOUND({ detail: `record ${naturalKey} does not exist` });
    }
    const payload = payloadOrThrow(deps, contract, 'update', input);
    if (naturalKeyOf(contract, payload) !== naturalKey) {
      deps.metrics.rejected(contractId, 'update', 'invalid');
      const fieldErrors = contract.naturalKey.fields.map((field) => ({
        field,
        message: `must match the natural key in the path (${naturalKey})`,
      }));
      throw integrationErrors.PAYLOAD_INVALID({
        detail: `payload fails contract validation: ${fieldErrors[0]!.field} ${fieldErrors[0]!.message}`,
        body: { errors: fieldErrors },
      });
    }
    const envelope = envelopeFor(deps, contract, 'update', 'update', payload, traceId, naturalKey);
    return queueAndPublish(deps, contract, 'update', envelope);
  });
}

export async function deleteRecord(
  deps: SubmissionDeps,
  contractId: string,
  naturalKey: string,
  traceId: string,
): Promise<Accepted> {
  const contract = await loadContract(deps, contractId);
  deps.metrics.submitted(contractId, 'delete');
  requireClass(deps, contract, 'tombstone', 'delete');
  return deps.mutex.run(`${contractId}\u0000${naturalKey}`, async () => {
    const current = await findActive(deps.db, contractId, naturalKey);
    if (!current) {
      deps.metrics.rejected(contractId, 'delete', 'not_found');
      throw integrationErrors.RECORD_NOT_FOUND({ detail: `record ${naturalKey} does not exist` });
    }
    const envelope = envelopeFor(
      deps,
      contract,
      'tombstone',
      'delete',
      tombstonePayload(contract, current.payload),
      traceId,
      naturalKey,
    );
    return queueAndPublish(deps, contract, 'delete', envelope);
  });
}

/** An update or tombstone: queued in the outbox (its revision given there), published, settled. */
async function queueAndPublish(
  deps: SubmissionDeps,
  contract: ContractDefinition,
  operation: 'update' | 'delete',
  envelope: Envelope,
): Promise<Accepted> {
  const cls = operation === 'update' ? 'update' : 'tombstone';
  const topic = topicName(contract.contractId, cls);
  const revision = await enqueueEvent(deps.db, operation, topic, envelope, deps.intake.owner).catch(
    async (error: unknown) =>
      (await revisionsAfterLostAnswer(deps.db, error, [envelope.recordId])).get(
        envelope.recordId.toLowerCase(),
      ),
  );
  if (revision === undefined) {
    deps.metrics.rejected(contract.contractId, operation, 'not_found');
    throw integrationErrors.RECORD_NOT_FOUND({
      detail: `record ${envelope.naturalKey} does not exist`,
    });
  }
  envelope.revision = revision;
  let position: SentPosition | InDoubt;
  try {
    position = await publish(deps, contract, cls, operation, envelope);
  } catch (error) {
    const kept = await settle(deps, [], [envelope.recordId]);
    if (kept.size === 0) throw error;
    return accepted(envelope, topic);
  }
  if ('inDoubt' in position) await settle(deps, [], [], [position.recordId]);
  else await settle(deps, [position], []);
  return accepted(envelope, topic);
}

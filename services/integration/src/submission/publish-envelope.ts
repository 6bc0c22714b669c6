/**
 * Publishes one envelope keyed by its natural key (the request path and the outbox relay
 * both go through here): the headers adapters read, the de-duplication id (the record
 * id unless told otherwise), and one retry after provisioning the contract's topics when
 * the broker lost them (e.g. a NATS server reset).
 */
import type { Broker, PublishResult } from '../broker/broker.js';
import type { ContractDefinition } from '../contracts/contract.js';
import type { Envelope } from '../contracts/envelope.js';
import { contractTopics } from '../contracts/topics.js';

export function envelopeHeaders(envelope: Envelope): Record<string, string> {
  const headers: Record<string, string> = {
    traceId: envelope.traceId,
    contractId: envelope.contractId,
    recordType: envelope.recordType,
    schemaVersion: String(envelope.schemaVersion),
  };
  if (envelope.revision !== undefined) headers.revision = String(envelope.revision);
  return headers;
}

/**
 * The published text of an envelope whose revision was set after `stored` was made
 * (`JSON.stringify` of the envelope without its revision): the same bytes as
 * `JSON.stringify(envelope)`, since a revision set afterwards is the object's last key,
 * without serialising the payload a second time.
 */
export function withRevision(stored: string, revision: number | undefined): string {
  return revision === undefined ? stored : `${stored.slice(0, -1)},"revision":${revision}}`;
}

export async function publishEnvelope(
  broker: Broker,
  contract: () => Promise<ContractDefinition | undefined>,
  topic: string,
  envelope: Envelope,
  dedupeId = envelope.recordId,
  body = JSON.stringify(envelope),
): Promise<PublishResult> {
  const send = () =>
    broker.publish(topic, envelope.naturalKey, body, envelopeHeaders(envelope), {
      dedupeId,
    });
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof Error && error.name === 'UnknownTopicError')) throw error;
    const definition = await contract();
    if (!definition) throw error;
    for (const spec of contractTopics(definition)) await broker.ensureTopic(spec);
    return send();
  }
}

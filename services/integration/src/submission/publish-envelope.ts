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

export async function publishEnvelope(
  broker: Broker,
  contract: () => Promise<ContractDefinition | undefined>,
  topic: string,
  envelope: Envelope,
  dedupeId = envelope.recordId,
): Promise<PublishResult> {
  const send = () =>
    broker.publish(
      topic,
      envelope.naturalKey,
      JSON.stringify(envelope),
      envelopeHeaders(envelope),
      {
        dedupeId,
      },
    );
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

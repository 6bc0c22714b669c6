/**
 * Publishes to JetStream with the stream's acknowledgements answered into the broker's
 * one inbox (`inbox-requests.ts`) instead of `js.publish` (a client request each).
 *
 * Reads: a PubAck (`{"stream","seq","duplicate"?}`), a JetStream error
 * (`{"error":{"code","description"}}`) or a status message (503: no stream listens on the
 * subject). Resolves the first with its stream sequence; rejects the others, a timeout
 * (`TIMEOUT`) and a closed inbox (`connection closed`) with a plain `Error` the caller
 * maps to its own (the broker: `BrokerUnavailableError`, in doubt while the connection is
 * open).
 */
import type { MsgHdrs } from 'nats';
import { jsonAnswer, type InboxRequests } from './inbox-requests.js';

export interface PubAck {
  stream: string;
  /** The record's stream sequence (1-based). */
  seq: number;
  /** The stream already held a record with this de-duplication id (`Nats-Msg-Id`). */
  duplicate: boolean;
}

const WHAT = 'a JetStream publish (invalid JetStream publish acknowledgement)';

export class PublishAcks {
  constructor(private readonly requests: InboxRequests) {}

  /**
   * Hands one record to the client (written with the others of this turn) and resolves
   * with the stream's acknowledgement. Rejects at once when the client refuses it (closed
   * or draining connection): then nothing was sent.
   */
  async publish(subject: string, data: Uint8Array, headers: MsgHdrs): Promise<PubAck> {
    const ack = jsonAnswer<{ stream?: string; seq?: number; duplicate?: boolean }>(
      await this.requests.request(subject, data, headers),
      WHAT,
    );
    if (!ack.stream || typeof ack.seq !== 'number')
      throw new Error('invalid JetStream publish acknowledgement');
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate === true };
  }
}

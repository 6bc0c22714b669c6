/**
 * Publishes to JetStream with the stream's acknowledgements answered into one inbox of
 * the broker's (`<inbox>.<token>`): each publish waits in a map keyed by its token, and
 * one timer ends those nobody answered in time.
 *
 * Reads: a PubAck (`{"stream","seq","duplicate"?}`), a JetStream error
 * (`{"error":{"code","description"}}`) or a status message (503: no stream listens on the
 * subject). Resolves the first with its stream sequence; rejects the others, a timeout
 * (`TIMEOUT`) and a closed inbox (`connection closed`) with a plain `Error` the caller
 * maps to its own (the broker: `BrokerUnavailableError`, in doubt while the connection is
 * open).
 *
 * Why not `js.publish`: it is `nc.request` per record, each a mux entry, a timer, two
 * deferreds and the PubAck decoded through the client's codec, and after every answered
 * request the client builds a `NatsError` (an `Error`, its stack captured) to reject a
 * promise that had already settled: 1 % of a loaded single-POST profile on its own
 * (27 Nov 2026), the largest self time of the client's code.
 */
import { createInbox, type MsgHdrs, type NatsConnection, type Subscription, type Msg } from 'nats';

export interface PubAck {
  stream: string;
  /** The record's stream sequence (1-based). */
  seq: number;
  /** The stream already held a record with this de-duplication id (`Nats-Msg-Id`). */
  duplicate: boolean;
}

interface Waiting {
  resolve(ack: PubAck): void;
  reject(error: Error): void;
  deadline: number;
}

export class PublishAcks {
  private readonly prefix: string;
  private readonly sub: Subscription;
  private next = 0;
  /** Insertion order is deadline order: every publish waits the same `timeoutMs`. */
  private readonly waiting = new Map<string, Waiting>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {
    this.prefix = `${createInbox()}.`;
    this.sub = nc.subscribe(`${this.prefix}*`, {
      callback: (err, msg) => (err ? this.failAll(err.message) : this.receive(msg)),
    });
    // The connection closed (or the subscription ended): nothing more will be answered.
    void this.sub.closed.then(
      () => this.failAll('connection closed'),
      () => this.failAll('connection closed'),
    );
  }

  /**
   * Hands one record to the client (written with the others of this turn) and resolves
   * with the stream's acknowledgement. Throws at once when the client refuses it (closed
   * or draining connection): then nothing was sent.
   */
  publish(subject: string, data: Uint8Array, headers: MsgHdrs): Promise<PubAck> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const token = (this.next++).toString(36);
    this.nc.publish(subject, data, { reply: this.prefix + token, headers });
    return new Promise<PubAck>((resolve, reject) => {
      this.waiting.set(token, { resolve, reject, deadline: Date.now() + this.timeoutMs });
      if (!this.timer) this.arm(this.timeoutMs);
    });
  }

  private receive(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const waiting = this.waiting.get(token);
    if (!waiting) return; // answered after its timeout: the caller was told it is in doubt
    this.waiting.delete(token);
    const status = msg.headers?.code ?? 0;
    if (status >= 300 || msg.data.length === 0) {
      waiting.reject(new Error(`${status || 'empty answer'} ${msg.headers?.description ?? ''}`));
      return;
    }
    let ack: {
      stream?: string;
      seq?: number;
      duplicate?: boolean;
      error?: { description?: string; code?: number };
    };
    try {
      ack = JSON.parse(
        Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.length).toString('utf8'),
      );
    } catch {
      waiting.reject(new Error('invalid JetStream publish acknowledgement'));
      return;
    }
    if (ack.error)
      waiting.reject(new Error(ack.error.description ?? `JetStream error ${ack.error.code}`));
    else if (!ack.stream || typeof ack.seq !== 'number')
      waiting.reject(new Error('invalid JetStream publish acknowledgement'));
    else waiting.resolve({ stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate === true });
  }

  /** One timer for all: it fires at the oldest deadline and ends every publish past its own. */
  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const now = Date.now();
      for (const [token, waiting] of this.waiting) {
        if (waiting.deadline > now) {
          this.arm(waiting.deadline - now);
          return;
        }
        this.waiting.delete(token);
        waiting.reject(new Error('TIMEOUT'));
      }
    }, ms);
    this.timer.unref();
  }

  private failAll(reason: string): void {
    if (this.sub.isClosed()) this.closed = true;
    for (const waiting of this.waiting.values()) waiting.reject(new Error(reason));
    this.waiting.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  close(): void {
    if (!this.sub.isClosed()) this.sub.unsubscribe();
    this.closed = true;
    this.failAll('connection closed');
  }
}

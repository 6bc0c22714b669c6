/**
 * Requests answered into one inbox of the connection's (`<inbox>.<token>`): each waits in
 * a map keyed by its token, and one timer ends those nobody answered in time. Used for
 * the broker's publishes (`publish-acks.ts`) and the consumer's confirmed acks and
 * consumer-info requests (`jetstream-consumer.ts`).
 *
 * Resolves with the answer; rejects a status answer (`503`: nobody listens on the
 * subject), a timeout (`TIMEOUT`) and a closed inbox (`connection closed`) with a plain
 * `Error` the caller maps to its own.
 *
 * Why not `nc.request` (which `js.publish`, `ackAck` and `consumers.info` are): each is a
 * mux entry, a timer, two deferreds, and after every answered request the client builds a
 * `NatsError` (an `Error`, its stack captured) to reject a promise that had already
 * settled: 1 % of a loaded single-POST profile for publishes alone, 0.55 % more for acks
 * and consumer info (27 Nov 2026), the largest self time of the client's code.
 */
import { createInbox, type MsgHdrs, type NatsConnection, type Subscription, type Msg } from 'nats';

interface Waiting {
  resolve(answer: Msg): void;
  reject(error: Error): void;
  deadline: number;
}

const EMPTY = new Uint8Array(0);

export class InboxRequests {
  private readonly prefix: string;
  private readonly sub: Subscription;
  private next = 0;
  /** Insertion order is deadline order: every request waits the same `timeoutMs`. */
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

  /** How many requests wait for an answer (for tests). */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Hands one request to the client (written with the others of this turn) and resolves
   * with its answer. Rejects at once when the client refuses it (closed or draining
   * connection): then nothing was sent.
   */
  request(subject: string, data: Uint8Array = EMPTY, headers?: MsgHdrs): Promise<Msg> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const token = (this.next++).toString(36);
    try {
      this.nc.publish(subject, data, { reply: this.prefix + token, headers });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<Msg>((resolve, reject) => {
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
    if (status >= 300) {
      waiting.reject(new Error(`${status} ${msg.headers?.description ?? ''}`));
      return;
    }
    waiting.resolve(msg);
  }

  /** One timer for all: it fires at the oldest deadline and ends every request past its own. */
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

/** An answer's body as JSON; a JetStream API error (`{"error":{...}}`) rejects with its description. */
export function jsonAnswer<T>(msg: Msg, what: string): T {
  if (msg.data.length === 0) throw new Error(`empty answer to ${what}`);
  let body: T & { error?: { description?: string; code?: number } };
  try {
    body = JSON.parse(
      Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.length).toString('utf8'),
    );
  } catch {
    throw new Error(`invalid answer to ${what}`);
  }
  if (body.error) throw new Error(body.error.description ?? `JetStream error ${body.error.code}`);
  return body;
}

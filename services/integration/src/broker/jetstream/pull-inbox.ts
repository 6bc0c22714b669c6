/**
 * The inbox a partition's worker pulls into: one subscription for as long as the worker
 * reads the same durable, every pull request answered to it, every message kept in
 * arrival (delivery) order until the worker takes it.
 *
 * The client's own pull helpers (`consumer.next()`, `js.fetch()`) subscribe an inbox per
 * request and drop it on the client's timer. On a loaded machine that timer fires before
 * the socket is read (timers run before I/O in a turn of the event loop), so a message
 * the server handed to the request in time was dropped unread: a hole in the durable's
 * deliveries, which the worker can only mend by re-creating the durable and reading the
 * partition again (`deliveryGap`). At load 15 that was a re-read every few batches, each
 * batch read and applied twice (27 Nov 2026). Here a request the worker stopped waiting
 * for still answers into the same inbox, so a late message is simply the next one read.
 * `next()` also sent a second request of its own when two idle heartbeats were missed
 * (a stall of a second), whose message went to the inbox it dropped after the first.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from 'nats';
import { toPulled, type PulledFrom, type PulledMessage } from './pulled-message.js';

export interface PullRequest {
  batch: number;
  /** The server ends the request after this long (a long poll); absent with `noWait`. */
  expiresMs?: number;
  /** The server answers with what it has now and ends the request. */
  noWait?: boolean;
}

export class PullInbox {
  private readonly inbox: string;
  private readonly sub: Subscription;
  private readonly subject: string;
  private messages: PulledMessage[] = [];
  private waiter: (() => void) | undefined;
  /** Statuses received (404 no messages, 408 expired, 409 ...): each ends a request. */
  private ended = 0;
  /** Messages received so far. */
  private received = 0;
  /** The last long poll (`longPoll`): when it was sent, and the counts then. */
  private lastPoll: { at: number; ended: number; received: number; waitMs: number } | undefined;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    apiPrefix: string,
    stream: string,
    durable: string,
    /** The partition the messages are records of (`pulled-message.ts`). */
    private readonly from: PulledFrom,
  ) {
    this.subject = `${apiPrefix}.CONSUMER.MSG.NEXT.${stream}.${durable}`;
    this.inbox = createInbox(); // the connection is made without an inbox prefix
    this.sub = nc.subscribe(this.inbox, { callback: (err, msg) => this.receive(err, msg) });
  }

  /** Messages received and not yet taken. */
  get size(): number {
    return this.messages.length;
  }

  get last(): PulledMessage | undefined {
    return this.messages.at(-1);
  }

  /** How many requests have ended with a status so far (compare before and after a wait). */
  get endings(): number {
    return this.ended;
  }

  /**
   * True while the last long poll can still answer: nothing received since it was sent
   * (it asks for one message; a status ends it) and not past its expiry and grace (a
   * server that died with it). Then no other is sent: one would only double the pulls.
   */
  get polling(): boolean {
    const poll = this.lastPoll;
    return (
      poll !== undefined &&
      this.ended === poll.ended &&
      this.received === poll.received &&
      Date.now() - poll.at <= poll.waitMs
    );
  }

  /**
   * Sends the long poll for a batch's first message (`expiresMs` at the server), unless
   * one is out (`polling`, which gives up on it `graceMs` after its expiry).
   */
  longPoll(expiresMs: number, graceMs: number): void {
    if (this.closed || this.polling) return;
    this.pull({ batch: 1, expiresMs });
    this.lastPoll = {
      at: Date.now(),
      ended: this.ended,
      received: this.received,
      waitMs: expiresMs + graceMs,
    };
  }

  pull(request: PullRequest): void {
    if (this.closed) return;
    const body: Record<string, unknown> = { batch: request.batch };
    if (request.noWait) body.no_wait = true;
    // nanoseconds, as the server reads it
    if (request.expiresMs !== undefined) body.expires = request.expiresMs * 1_000_000;
    this.nc.publish(this.subject, JSON.stringify(body), { reply: this.inbox });
  }

  /** Takes up to `max` messages, the oldest first. */
  take(max = Infinity): PulledMessage[] {
    return this.messages.splice(0, max);
  }

  /**
   * Resolves when `done()` holds after something arrived, after `ms`, or on `interrupt()`.
   * `done` is checked first, so a wait whose condition already holds does not wait.
   */
  async wait(ms: number, done: () => boolean): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed && !done()) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = undefined;
          resolve();
        }, left);
        this.waiter = () => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve();
        };
      });
    }
  }

  /** Ends a `wait` now (the consumer stops, pauses or moves). */
  interrupt(): void {
    this.waiter?.();
  }

  /** Unsubscribes; what it held is dropped unacknowledged (the durable delivers it again). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.messages = [];
    this.sub.unsubscribe();
    this.interrupt();
  }

  private receive(err: Error | null, msg: Msg): void {
    if (err) {
      // The subscription itself failed (permissions): nothing more comes to it.
      this.ended += 1;
    } else {
      // A message has an ack subject to answer to; a status (sent to the inbox itself)
      // has none. Told apart by the reply, which a message's reading needs anyway (the
      // subject would be decoded for this alone).
      const reply = msg.reply;
      if (reply) {
        this.received += 1;
        this.messages.push(toPulled(msg, reply, this.from));
      } else {
        // A status: 100 is an idle heartbeat (never asked for), anything else ends a
        // request (404 nothing there, 408 expired, 409 consumer deleted, ...).
        if (msg.headers?.code === 100) return;
        this.ended += 1;
      }
    }
    this.waiter?.();
  }
}

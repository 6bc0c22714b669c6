/**
 * The de-duplication ids (`Nats-Msg-Id`) a stream holds at a range of sequences, read in
 * bulk: one ordered, headers-only consumer of the range, fetched a thousand at a time.
 * The outbox reconciler checks every record of its window this way after each (re)connect
 * (`missing`): asked one message at a time, that was one request and answer a record —
 * 4,800 after the bench's warm-up, which doubled the CPU a record of the phase they fell
 * in (28 Nov 2026), and up to the reconciler's limit of 200,000 a partition on a busy
 * platform.
 */
import { DeliverPolicy, type JetStreamClient } from 'nats';
import { MSG_ID_HEADER } from './naming.js';

/** Most messages one fetch asks for (headers only: about a hundred bytes each). */
const FETCH_MAX = 1000;
/** How long a fetch waits for messages that are not there (the range has holes). */
const FETCH_EXPIRES_MS = 2000;

/** Sequence → `Nats-Msg-Id` of each message the stream holds from `fromSeq` to `toSeq`. */
export async function readMessageIds(
  js: JetStreamClient,
  stream: string,
  fromSeq: number,
  toSeq: number,
): Promise<Map<number, string>> {
  const ids = new Map<number, string>();
  const consumer = await js.consumers.get(stream, {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: fromSeq,
    headers_only: true,
  });
  try {
    let next = fromSeq;
    let done = false;
    while (!done && next <= toSeq) {
      const messages = await consumer.fetch({
        max_messages: Math.min(FETCH_MAX, toSeq - next + 1),
        expires: FETCH_EXPIRES_MS,
      });
      let received = 0;
      for await (const message of messages) {
        received += 1;
        if (message.seq > toSeq) {
          done = true;
          break;
        }
        ids.set(message.seq, message.headers?.get(MSG_ID_HEADER) ?? '');
        next = message.seq + 1;
        // The range's end, or the stream's (a fetch asked for more would wait its expiry).
        if (message.seq === toSeq || message.info.pending === 0) {
          done = true;
          break;
        }
      }
      if (received === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return ids;
}

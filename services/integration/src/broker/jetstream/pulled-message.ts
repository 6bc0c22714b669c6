/**
 * A message a worker pulled, read once into what the consumer uses: the broker record, the
 * ack subject and the two sequences from it. Replaces the client's `toJsMsg` plus its
 * header decoding, which for every message split the reply subject into an info object of
 * eleven fields, decoded the headers into a map of arrays (each name checked and put in
 * MIME form, each value validated) that the consumer then copied into a record, and copied
 * the payload: with the client's parser, 13–18 % of a loaded drain's CPU plus their share
 * of GC (27 Nov 2026).
 *
 * The headers are read from the message's raw bytes (the client keeps them unparsed until
 * asked), the way the client reads them: `NATS/1.0` then `name: value` lines, each name as
 * sent, the value trimmed, a name's first value kept. The payload is a view of the bytes
 * the client read (not a copy: the client never reuses them).
 */
import type { Msg } from 'nats';
import type { BrokerRecord } from '../broker.js';
import { keyFromHeader } from './message-key.js';

export interface PulledMessage {
  readonly record: BrokerRecord;
  /** The ack subject (`$JS.ACK.…`): an ack, a nak, a confirmed ack all go there. */
  readonly reply: string;
  /** The stream's sequence (the record's offset + 1). */
  readonly streamSequence: number;
  /** The durable's delivery sequence (every delivery, redeliveries included, takes the next). */
  readonly deliverySequence: number;
  /** Messages the durable had left to deliver after this one. */
  readonly pending: number;
}

/** Where a partition's messages belong. */
export interface PulledFrom {
  topic: string;
  partition: number;
}

/** The client's message as it holds it (`MsgImpl`: the header block's length, the bytes). */
interface RawMsg {
  _msg?: { hdr?: number };
  _rdata?: Uint8Array;
}

const HEADER_LINE = '\r\n';

/**
 * The reply subject's numbers. Two forms (the server's, `parseInfo` in the client):
 * `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<delivery seq>.<time>.<pending>`
 * and, with a domain and account hash, `$JS.ACK.<domain>.<hash>.<stream>.<consumer>.…
 * .<pending>.<random>`. Names hold no dots, so the numbers are found by position: the
 * dots are found and the four numbers read digit by digit in place (a `split` made an
 * array of nine to twelve strings a message, 2.3 % of a drain's CPU). No closures here:
 * under tsx every nested function gets its name set on each call (`__name`).
 */
const ZERO = 48;
/** Where the dots of the reply subject being read are (reused: reading is synchronous). */
const dots = new Int32Array(13);

/** The decimal number in `text` from `start` to `end` (exclusive). */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i += 1) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) throw new Error(`not a JetStream message: ${text}`);
    value = value * 10 + digit;
  }
  return value;
}

/** The token after dot `dot` (of `count`), its last `drop` digits left off. */
function tokenNumber(reply: string, count: number, dot: number, drop = 0): number {
  const end = dot + 1 < count ? dots[dot + 1]! : reply.length;
  return digits(reply, dots[dot]! + 1, end - drop);
}

function ackInfo(
  reply: string,
): [stream: number, delivery: number, millis: number, pending: number] {
  // The dots by `indexOf` (native; a split made nine to twelve strings a message, and a
  // loop over every character was slower still).
  let count = 0;
  let at = reply.indexOf('.');
  while (at >= 0 && count < dots.length) {
    dots[count++] = at;
    at = reply.indexOf('.', at + 1);
  }
  // tokens = dots + 1: 9 in the first form, 12 (or more, later fields) in the second
  const first = count === 8 ? 4 : count >= 11 ? 6 : -1;
  if (first < 0 || !reply.startsWith('$JS.ACK.'))
    throw new Error(`not a JetStream message: ${reply}`);
  // The time is in nanoseconds (19 digits, past a double's exact integers): its
  // milliseconds are read without the last six digits, exactly.
  return [
    tokenNumber(reply, count, first),
    tokenNumber(reply, count, first + 1),
    tokenNumber(reply, count, first + 2, 6),
    tokenNumber(reply, count, first + 3),
  ];
}

/** `name: value` lines after the status line; the key's header goes to `key`. */
function readHeaders(block: string): { key: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  let key: string | undefined;
  let from = block.indexOf(HEADER_LINE);
  while (from >= 0) {
    const start = from + HEADER_LINE.length;
    const end = block.indexOf(HEADER_LINE, start);
    const line = end < 0 ? block.slice(start) : block.slice(start, end);
    from = end;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    const keyHere = keyFromHeader(name, value);
    if (keyHere !== undefined) key ??= keyHere;
    else if (!(name in headers)) headers[name] = value;
  }
  return { key: key ?? '', headers };
}

export function toPulledMessage(msg: Msg, from: PulledFrom): PulledMessage {
  return toPulled(msg, msg.reply ?? '', from);
}

/** `toPulledMessage` with the reply subject already read (the inbox reads it first). */
export function toPulled(msg: Msg, reply: string, from: PulledFrom): PulledMessage {
  if (!reply) throw new Error('a pulled message without a reply subject');
  const [streamSequence, deliverySequence, millis, pending] = ackInfo(reply);
  const raw = msg as unknown as RawMsg;
  const bytes = raw._rdata;
  const headerLength = raw._msg?.hdr;
  let key: string;
  let headers: Record<string, string>;
  let value: Buffer;
  if (bytes instanceof Uint8Array && typeof headerLength === 'number') {
    const split = Math.max(0, headerLength);
    const block =
      headerLength > 0
        ? Buffer.from(bytes.buffer, bytes.byteOffset, headerLength).toString('utf8')
        : '';
    ({ key, headers } = readHeaders(block));
    value = Buffer.from(bytes.buffer, bytes.byteOffset + split, bytes.length - split);
  } else {
    // Not the client's message as this version holds it: through its own getters.
    headers = {};
    key = '';
    for (const [name, values] of msg.headers ?? []) {
      const keyHere = keyFromHeader(name, values[0] ?? '');
      if (keyHere !== undefined) key = keyHere;
      else headers[name] = values[0] ?? '';
    }
    const data = msg.data;
    value = Buffer.from(data.buffer, data.byteOffset, data.length);
  }
  return {
    record: {
      topic: from.topic,
      partition: from.partition,
      offset: streamSequence - 1,
      key,
      value,
      headers,
      timestamp: new Date(millis),
    },
    reply,
    streamSequence,
    deliverySequence,
    pending,
  };
}

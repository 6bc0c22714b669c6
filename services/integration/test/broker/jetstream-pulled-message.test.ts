/**
 * JetStream only. A pulled message is read from the client's raw bytes (`pulled-message.ts`)
 * instead of through the client's `toJsMsg` and header decoding: it must read what the
 * client reads — sequences, pending and time from the ack subject, each header's first
 * value (trimmed, the name as sent), the key header apart, the payload's bytes — for
 * messages with and without headers, and the reply subject's second form (domain, hash).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { natsUrlForTests, skipReason } from '@platform/testing';
import {
  AckPolicy,
  connect,
  createInbox,
  headers as natsHeaders,
  type JetStreamManager,
  type Msg,
  type NatsConnection,
} from 'nats';
// The client's own reading, to compare with (not exported at the package's top).
import { toJsMsg } from 'nats/lib/jetstream/jsmsg.js';
import { toPulledMessage } from '../../src/broker/jetstream/pulled-message.js';
import { waitFor } from '../helpers/broker-drivers.js';

const url = await natsUrlForTests();
const from = { topic: 'orders', partition: 2 };

describe(
  'jetstream pulled message',
  { skip: skipReason('NATS JetStream on 127.0.0.1:4222 (pulled message)', Boolean(url)) },
  () => {
    const stream = `T${randomBytes(5).toString('hex').toUpperCase()}_PULLED`;
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    before(async () => {
      nc = await connect({ servers: url! });
      jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
      await jsm.consumers.add(stream, { durable_name: 'd', ack_policy: AckPolicy.All });
    });
    after(async () => {
      await jsm?.streams.delete(stream).catch(() => undefined);
      await nc?.close();
    });

    it('reads what the client reads, from the raw bytes', async () => {
      const js = nc.jetstream();
      const withHeaders = natsHeaders();
      withHeaders.append('Broker-Key', 'kéy ü 1');
      withHeaders.append('traceparent', '00-abc-def-01');
      withHeaders.append('X-Twice', 'first');
      withHeaders.append('X-Twice', 'second');
      withHeaders.append('lower-case', '  spaced value ');
      await js.publish(`${stream}.a`, Buffer.from('{"a":"ä"}'), { headers: withHeaders });
      await js.publish(`${stream}.a`, Buffer.from('no headers'));
      await js.publish(`${stream}.a`, new Uint8Array(0), { headers: withHeaders });

      const inbox = createInbox();
      const got: Msg[] = [];
      const sub = nc.subscribe(inbox, {
        callback: (_err, msg) => {
          if (msg.subject !== inbox) got.push(msg);
        },
      });
      nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${stream}.d`, JSON.stringify({ batch: 3 }), {
        reply: inbox,
      });
      await waitFor('three messages', () => got.length === 3);
      sub.unsubscribe();

      for (const msg of got) {
        const pulled = toPulledMessage(msg, from);
        const client = toJsMsg(msg);
        const expected: Record<string, string> = {};
        let key = '';
        for (const [name, values] of client.headers ?? []) {
          if (name === 'Broker-Key') key = values[0]!;
          else expected[name] = values[0]!;
        }
        assert.equal(pulled.reply, msg.reply);
        assert.equal(pulled.streamSequence, client.info.streamSequence);
        assert.equal(pulled.deliverySequence, client.info.deliverySequence);
        assert.equal(pulled.pending, client.info.pending);
        assert.deepEqual(pulled.record, {
          topic: 'orders',
          partition: 2,
          offset: client.info.streamSequence - 1,
          key,
          value: Buffer.from(client.data),
          headers: expected,
          // exactly, from the subject's nanoseconds (the client's float rounds a few up)
          timestamp: new Date(Number(BigInt(msg.reply!.split('.')[7]!) / 1_000_000n)),
        });
      }
      const [first, second, third] = got.map((msg) => toPulledMessage(msg, from).record);
      // What the comparison above stands on, spelled out.
      assert.equal(first!.key, 'kéy ü 1');
      assert.deepEqual(first!.headers, {
        traceparent: '00-abc-def-01',
        'X-Twice': 'first',
        'lower-case': 'spaced value',
      });
      assert.equal(first!.value.toString(), '{"a":"ä"}');
      assert.deepEqual(
        [second!.key, second!.headers, second!.value.toString()],
        ['', {}, 'no headers'],
      );
      assert.equal(third!.value.length, 0);
      assert.deepEqual(
        got.map((msg) => toPulledMessage(msg, from).pending),
        [2, 1, 0],
      );
    });

    it('reads the ack subject with a domain and an account hash', () => {
      const msg = {
        reply: '$JS.ACK.hub.ACCHASH.S.d.2.41.17.1700000000123999999.5.r4nd',
        data: new Uint8Array(0),
        headers: undefined,
      } as unknown as Msg;
      const pulled = toPulledMessage(msg, from);
      assert.deepEqual(
        [pulled.streamSequence, pulled.deliverySequence, pulled.pending],
        [41, 17, 5],
      );
      assert.equal(pulled.record.offset, 40);
      assert.equal(pulled.record.timestamp.getTime(), 1_700_000_000_123);
      for (const reply of ['_INBOX.x.y', '$JS.ACK.S.d.1.x2.3.4.5', '$JS.ACK.S.d.1.2.3'])
        assert.throws(() => toPulledMessage({ reply } as unknown as Msg, from), /not a JetStream/);
    });
  },
);

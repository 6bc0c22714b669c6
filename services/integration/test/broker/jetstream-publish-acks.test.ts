/**
 * JetStream only: the broker's publishes are answered into one inbox of its own
 * (`publish-acks.ts`) instead of a client request each. What the client's request gave
 * the broker must still hold: the stream's sequence and the duplicate flag, a refusal at
 * once where no stream listens, a timeout when nothing answers (one timer for all, so a
 * later publish is not ended by an earlier one's deadline), and every waiting publish
 * ended when the inbox closes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { natsUrlForTests, skipReason } from '@platform/testing';
import { AckPolicy, connect, headers, type JsMsg, type NatsConnection } from 'nats';
import { InboxRequests, jsonAnswer } from '../../src/broker/jetstream/inbox-requests.js';
import { PublishAcks } from '../../src/broker/jetstream/publish-acks.js';
import { uniqueName } from '../helpers/broker-drivers.js';

const url = await natsUrlForTests();
const bytes = (text: string) => Buffer.from(text, 'utf8');
const withId = (id: string) => {
  const h = headers();
  h.set('Nats-Msg-Id', id);
  return h;
};

describe(
  'jetstream publish acknowledgements',
  { skip: skipReason('NATS JetStream (jetstream publish acks)', url !== undefined) },
  () => {
    let nc: NatsConnection;
    const stream = uniqueName('ACKS').replace(/[^A-Za-z0-9_]/g, '_');
    const subject = `${stream}.in`;
    before(async () => {
      nc = await connect({ servers: url!, timeout: 5000 });
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: stream, subjects: [subject] });
    });
    after(async () => {
      if (!nc) return;
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    });

    it('resolves with the stream sequence, a repeated de-duplication id as a duplicate', async () => {
      const requests = new InboxRequests(nc, 5000);
      const acks = new PublishAcks(requests);
      try {
        const [a, b] = await Promise.all([
          acks.publish(subject, bytes('a'), withId('id-a')),
          acks.publish(subject, bytes('b'), withId('id-b')),
        ]);
        assert.equal(a.stream, stream);
        assert.equal(b.seq, a.seq + 1);
        assert.equal(a.duplicate, false);
        const again = await acks.publish(subject, bytes('a'), withId('id-a'));
        assert.deepEqual(again, { stream, seq: a.seq, duplicate: true });
      } finally {
        requests.close();
      }
    });

    it('refuses at once where no stream listens (no waiting for the timeout)', async () => {
      // A minute's timeout: a refusal that waited for it would fail the test by its own timeout.
      const requests = new InboxRequests(nc, 60_000);
      const acks = new PublishAcks(requests);
      try {
        await assert.rejects(
          acks.publish(`${stream}_nowhere.in`, bytes('x'), withId('id-x')),
          /^Error: 503/,
        );
      } finally {
        requests.close();
      }
    });

    it('ends an unanswered publish at its own deadline, not at an earlier one', async () => {
      // A plain subscriber takes the subject and never answers: no stream, no 503.
      const silent = `${stream}_silent`;
      const sub = nc.subscribe(silent);
      const requests = new InboxRequests(nc, 400);
      const acks = new PublishAcks(requests);
      try {
        const first = acks.publish(silent, bytes('1'), withId('s1'));
        const firstEnded = first.then(
          () => assert.fail('answered'),
          (error: Error) => (assert.equal(error.message, 'TIMEOUT'), Date.now()),
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        const secondSent = Date.now();
        const second = acks.publish(silent, bytes('2'), withId('s2'));
        await firstEnded;
        await assert.rejects(second, /^Error: TIMEOUT$/);
        assert.ok(
          Date.now() - secondSent >= 400,
          `the second publish ended ${Date.now() - secondSent} ms after it was sent (timeout 400 ms)`,
        );
        // The inbox still answers after its timeouts.
        const ack = await acks.publish(subject, bytes('after'), withId('after-timeouts'));
        assert.equal(ack.duplicate, false);
      } finally {
        requests.close();
        sub.unsubscribe();
      }
    });

    it('ends every waiting publish when it closes', async () => {
      const silent = `${stream}_closing`;
      const sub = nc.subscribe(silent);
      const requests = new InboxRequests(nc, 60_000);
      const acks = new PublishAcks(requests);
      const waiting = [1, 2, 3].map((i) => acks.publish(silent, bytes(String(i)), withId(`c${i}`)));
      requests.close();
      for (const publish of waiting) await assert.rejects(publish, /connection closed/);
      await assert.rejects(
        acks.publish(subject, bytes('late'), withId('late')),
        /connection closed/,
      );
      sub.unsubscribe();
    });
    it('confirms a consumer ack through the same inbox: the ack floor has moved when it resolves', async () => {
      const jsm = await nc.jetstreamManager();
      const durable = uniqueName('acker').replace(/[^A-Za-z0-9_]/g, '_');
      await jsm.consumers.add(stream, { durable_name: durable, ack_policy: AckPolicy.All });
      const requests = new InboxRequests(nc, 5000);
      const acks = new PublishAcks(requests);
      try {
        const published = await acks.publish(subject, bytes('to-ack'), withId('to-ack'));
        const js = nc.jetstream();
        const consumer = await js.consumers.get(stream, durable);
        const msgs = await consumer.fetch({ max_messages: 100, expires: 2000 });
        let last: JsMsg | undefined;
        for await (const msg of msgs) {
          last = msg;
          if (msg.seq === published.seq) break;
        }
        assert.equal(last?.seq, published.seq);
        const reply = (last as JsMsg & { reply?: string }).reply!;
        await requests.request(reply, bytes('+ACK'));
        const info = jsonAnswer<{ ack_floor: { stream_seq: number } }>(
          await requests.request(`$JS.API.CONSUMER.INFO.${stream}.${durable}`),
          'consumer info',
        );
        assert.equal(info.ack_floor.stream_seq, published.seq);
      } finally {
        requests.close();
        await jsm.consumers.delete(stream, durable).catch(() => undefined);
      }
    });

    it("rejects a JetStream API error with the server's description", async () => {
      const requests = new InboxRequests(nc, 5000);
      try {
        const answer = await requests.request(`$JS.API.CONSUMER.INFO.${stream}.nobody_here`);
        assert.throws(() => jsonAnswer(answer, 'consumer info'), /consumer not found/i);
        // An ack to a subject nobody answers on is refused at once (no waiting for the timeout).
        await assert.rejects(
          requests.request(`${stream}_nobody.ack`, bytes('+ACK')),
          /^Error: 503/,
        );
      } finally {
        requests.close();
      }
    });
  },
);

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
import { connect, headers, type NatsConnection } from 'nats';
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
      const acks = new PublishAcks(nc, 5000);
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
        acks.close();
      }
    });

    it('refuses at once where no stream listens (no waiting for the timeout)', async () => {
      // A minute's timeout: a refusal that waited for it would fail the test by its own timeout.
      const acks = new PublishAcks(nc, 60_000);
      try {
        await assert.rejects(
          acks.publish(`${stream}_nowhere.in`, bytes('x'), withId('id-x')),
          /^Error: 503/,
        );
      } finally {
        acks.close();
      }
    });

    it('ends an unanswered publish at its own deadline, not at an earlier one', async () => {
      // A plain subscriber takes the subject and never answers: no stream, no 503.
      const silent = `${stream}_silent`;
      const sub = nc.subscribe(silent);
      const acks = new PublishAcks(nc, 400);
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
        acks.close();
        sub.unsubscribe();
      }
    });

    it('ends every waiting publish when it closes', async () => {
      const silent = `${stream}_closing`;
      const sub = nc.subscribe(silent);
      const acks = new PublishAcks(nc, 60_000);
      const waiting = [1, 2, 3].map((i) => acks.publish(silent, bytes(String(i)), withId(`c${i}`)));
      acks.close();
      for (const publish of waiting) await assert.rejects(publish, /connection closed/);
      await assert.rejects(
        acks.publish(subject, bytes('late'), withId('late')),
        /connection closed/,
      );
      sub.unsubscribe();
    });
  },
);

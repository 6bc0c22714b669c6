/**
 * A publish's header block is written by `publish-headers.ts`, not by the client's
 * `headers()` object: it must be the bytes the client would send for the same headers,
 * refuse what the client refuses (a name outside printable ASCII or holding `:`, a value
 * holding CR or LF) and an empty name, and, on a real server, come back as the client reads it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { natsUrlForTests, skipReason } from '@platform/testing';
import { connect, headers as natsHeaders } from 'nats';
import {
  InvalidHeaderError,
  publishHeaders,
  type EncodedHeaders,
} from '../../src/broker/jetstream/publish-headers.js';

/** The client's encoding of `headers`, each set in order as the broker once did. */
function clientBytes(headers: Record<string, string>): Buffer {
  const hdrs = natsHeaders() as EncodedHeaders;
  for (const [name, value] of Object.entries(headers)) hdrs.set(name, value);
  return Buffer.from(hdrs.encode());
}

const cases: Array<Record<string, string>> = [
  { 'Broker-Key': 'K-1' },
  { 'Broker-Key': 'kéy ü 1', 'Nats-Msg-Id': '2b1f5c1e-2c33-4a8e-9d0e-0f4d1b7c9a11' },
  { traceparent: '00-abc-def-01', 'x-lower': '  spaced value ', 'Broker-Key': '' },
  { 'X-Emoji': '🦊 ∑', 'Broker-Key': 'a:b:c' },
];

describe('jetstream publish headers', () => {
  for (const headers of cases) {
    it(`encodes ${JSON.stringify(headers)} as the client does`, () => {
      const ours = Buffer.from(publishHeaders(headers).encode());
      assert.equal(ours.toString('utf8'), clientBytes(headers).toString('utf8'));
      assert.deepEqual(ours, clientBytes(headers));
    });
  }

  it('refuses a value with CR or LF, and a name the client refuses', () => {
    for (const bad of <Array<Record<string, string>>>[
      { 'Broker-Key': 'a\r\nInjected: yes' },
      { 'Broker-Key': 'line\nbreak' },
      { 'Bad Name': 'v' },
      { 'Bad:Name': 'v' },
      { Bäd: 'v' },
    ]) {
      assert.throws(() => publishHeaders(bad), InvalidHeaderError, JSON.stringify(bad));
      assert.throws(() => clientBytes(bad), JSON.stringify(bad));
    }
    // Stricter than the client, which writes `: v`, a line no reader takes for a header.
    assert.throws(() => publishHeaders({ '': 'v' }), InvalidHeaderError);
  });
});

const url = await natsUrlForTests();

describe(
  'jetstream publish headers on a server',
  { skip: skipReason('NATS on 127.0.0.1:4222 (publish headers)', Boolean(url)) },
  () => {
    it('arrive as the client reads them', async () => {
      const nc = await connect({ servers: url! });
      try {
        const subject = `T${randomBytes(5).toString('hex')}.headers`;
        const sub = nc.subscribe(subject, { max: 1 });
        nc.publish(subject, Buffer.from('{"a":1}'), {
          headers: publishHeaders({ 'Broker-Key': 'kéy 1', 'Nats-Msg-Id': 'id-1' }),
        });
        for await (const msg of sub) {
          assert.equal(msg.headers?.get('Broker-Key'), 'kéy 1');
          assert.equal(msg.headers?.get('Nats-Msg-Id'), 'id-1');
          assert.equal(Buffer.from(msg.data).toString(), '{"a":1}');
        }
      } finally {
        await nc.close();
      }
    });
  },
);

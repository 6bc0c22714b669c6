/**
 * A key's NATS header: unchanged keys travel as they always did, any other quoted, and the
 * header block the broker writes for it is one the client and this reader accept.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  KEY_HEADER,
  QUOTED_KEY_HEADER,
  keyFromHeader,
  keyHeader,
} from '../../src/broker/jetstream/message-key.js';
import { publishHeaders } from '../../src/broker/jetstream/publish-headers.js';

describe('a key in a NATS header', () => {
  it('sends a key a header value carries unchanged as it is, in Broker-Key', () => {
    for (const key of ['K-1', 'kéy ü 🦊', 'a:b:c', 'in  side', '"quoted"', '%0A', ''])
      assert.deepEqual(keyHeader(key), [KEY_HEADER, key]);
  });

  it('quotes a key with a line break or surrounding white space, and reads it back exactly', () => {
    for (const key of ['a\r\nInjected: yes', 'line\nbreak', ' lead', 'trail\t', '\u00a0', ' ']) {
      const [name, value] = keyHeader(key);
      assert.equal(name, QUOTED_KEY_HEADER, JSON.stringify(key));
      assert.doesNotMatch(value, /[\r\n]/);
      assert.equal(value, value.trim(), 'nothing for a reader to trim');
      assert.doesNotThrow(() => publishHeaders({ [name]: value }));
      assert.equal(keyFromHeader(name, value), key);
    }
  });

  it('reads a plain key as it is, and no other header as a key', () => {
    assert.equal(keyFromHeader(KEY_HEADER, '"not unquoted"'), '"not unquoted"');
    assert.equal(keyFromHeader('Nats-Msg-Id', 'id-1'), undefined);
    assert.equal(keyFromHeader('broker-key', 'k'), undefined, 'names are matched exactly');
  });

  it('takes a quoted header that is not a JSON string as it stands, never throwing', () => {
    assert.equal(keyFromHeader(QUOTED_KEY_HEADER, 'not json'), 'not json');
    assert.equal(keyFromHeader(QUOTED_KEY_HEADER, '42'), '42');
  });
});

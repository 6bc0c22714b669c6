import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ifNoneMatchHits } from '../../src/http/if-none-match.js';

describe('ifNoneMatchHits', () => {
  it('matches the tag itself, in a list, weak on either side, and *', () => {
    assert.equal(ifNoneMatchHits('"a1"', '"a1"'), true);
    assert.equal(ifNoneMatchHits('"x", "a1" ,"y"', '"a1"'), true);
    assert.equal(ifNoneMatchHits('W/"a1"', '"a1"'), true);
    assert.equal(ifNoneMatchHits('"a1"', 'W/"a1"'), true);
    assert.equal(ifNoneMatchHits(' * ', '"a1"'), true);
  });

  it('does not match another tag, a tag inside a tag, or no header', () => {
    assert.equal(ifNoneMatchHits('"a2"', '"a1"'), false);
    assert.equal(ifNoneMatchHits('"a1x"', '"a1"'), false);
    assert.equal(ifNoneMatchHits('', '"a1"'), false);
    assert.equal(ifNoneMatchHits(undefined, '"a1"'), false);
  });
});

/**
 * Offsets in the target: which events of a batch a target already applied. A record is a
 * duplicate when the target holds its record id; the stored position decides nothing
 * where the target keeps ids, and vouches only below the offset from which it keeps them
 * (bounded state). Found by the chaos run (seed 22): after a NATS power loss new records
 * took lost offsets below a stored position and were skipped as covered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alreadyApplied, positionsAfter } from '../../src/adapters/runtime/applied-position.js';

const slot = { consumerGroup: 'adapter.csv', topic: 'interns.updated', partition: 2 };
const event = (recordId: string, offset: number, publishedAt: number | undefined) => ({
  envelope: { recordId },
  position: { ...slot, offset, ...(publishedAt === undefined ? {} : { publishedAt }) },
});
const holding =
  (...ids: string[]) =>
  (recordId: string) =>
    ids.includes(recordId);

describe('offsets in the target: what a target already applied', () => {
  it('a batch delivered again is applied already: the target holds every id', () => {
    const before = [event('a', 0, 1000), event('b', 1, 1001), event('x', 2, 1002)];
    assert.deepEqual(positionsAfter(before)[0]!.position, {
      nextOffset: 3,
      lastRecordId: 'x',
      lastPublishedAt: 1002,
    });
    assert.deepEqual([...alreadyApplied(before, holding('a', 'b', 'x'), undefined)], [0, 1, 2]);
  });

  it('applies a record at an offset below the stored position that the target never saw', () => {
    // Fix 7 of the README: the target applied L at 0; the broker lost it and a new record
    // N took offset 0, but the consumer had read past it and applied b and c (position 3,
    // ending with c's very publish). Re-read from 0, N is new: the position held c at
    // offset 2 and counted N as covered.
    const reread = [event('N', 0, 2000), event('b', 1, 2001), event('c', 2, 2002)];
    assert.deepEqual([...alreadyApplied(reread, holding('L', 'b', 'c'), undefined)], [1, 2]);
  });

  it('below the offset from which ids are kept, the position vouches', () => {
    const far = [event('old-1', 5, 100), event('old-2', 6, 101), event('new', 7, 102)];
    // ids below 7 were pruned: the first two are applied without their ids; at 7 ids decide
    assert.deepEqual([...alreadyApplied(far, holding(), 7)], [0, 1]);
    assert.deepEqual([...alreadyApplied(far, holding('new'), 7)], [0, 1, 2]);
  });

  it('an event without a position is decided by its id alone', () => {
    const bare = [{ envelope: { recordId: 'p' } }, { envelope: { recordId: 'q' } }];
    assert.deepEqual([...alreadyApplied(bare, holding('q'), 10)], [1]);
  });
});

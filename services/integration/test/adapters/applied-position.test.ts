/**
 * Offsets in the target: which events of a batch a stored position covers. A position is
 * matched by the publish it ends with (record id and the broker's timestamp), so a record
 * the outbox published again after a broker lost its tail does not vouch for the new
 * records that took the lost offsets below it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  coveredByPosition,
  positionsAfter,
  type AppliedPosition,
} from '../../src/adapters/runtime/applied-position.js';

const slot = { consumerGroup: 'adapter.csv', topic: 'interns.updated', partition: 2 };
const event = (recordId: string, offset: number, publishedAt: number | undefined) => ({
  envelope: { recordId },
  position: { ...slot, offset, ...(publishedAt === undefined ? {} : { publishedAt }) },
});

describe('offsets in the target: covered by a stored position', () => {
  // Before the loss the target applied X, the fourth record of the partition.
  const before = [
    event('a', 0, 1000),
    event('b', 1, 1001),
    event('c', 2, 1002),
    event('x', 3, 1003),
  ];
  const stored = positionsAfter(before)[0]!.position;

  it('skips a batch delivered again: the same publish sits at the stored offset', () => {
    assert.deepEqual(stored, { nextOffset: 4, lastRecordId: 'x', lastPublishedAt: 1003 });
    assert.deepEqual([...coveredByPosition(before, stored)], [0, 1, 2, 3]);
  });

  it('does not skip new records below a lost record published again at its old offset', () => {
    // Found by the chaos run (seed 22): the broker lost b, c and x; two new records took
    // offsets 1 and 2, and the outbox published the lost ones again after them, x landing
    // at offset 3 once more. Matched by id alone, the new records were skipped by both
    // targets and never applied.
    const after = [
      event('a', 0, 1000),
      event('new-1', 1, 5000),
      event('new-2', 2, 5001),
      event('x', 3, 5002),
      event('b', 4, 5003),
      event('c', 5, 5004),
    ];
    assert.deepEqual([...coveredByPosition(after, stored)], []);
  });

  it('trusts no position stored without its publish time (written before it was kept)', () => {
    const old: AppliedPosition = { nextOffset: 4, lastRecordId: 'x' };
    assert.deepEqual([...coveredByPosition(before, old)], []);
  });
});

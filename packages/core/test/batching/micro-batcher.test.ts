import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MicroBatcher } from '../../src/batching/micro-batcher.js';

describe('MicroBatcher', () => {
  it('sends the calls of one event-loop turn in one flush, each answered with its own results', async () => {
    const flushes: number[][] = [];
    const batcher = new MicroBatcher(async (items: number[]) => {
      flushes.push(items);
      return items.map((item) => item * 10);
    });
    const answers = await Promise.all([batcher.run([1, 2]), batcher.run([3]), batcher.run([4, 5])]);
    assert.deepEqual(flushes, [[1, 2, 3, 4, 5]]);
    assert.deepEqual(answers, [[10, 20], [30], [40, 50]]);
  });

  it('bounds a flush by maxItems, and a failed flush rejects only its own calls', async () => {
    const flushes: string[][] = [];
    const batcher = new MicroBatcher(async (items: string[]) => {
      flushes.push(items);
      if (items.includes('bad')) throw new Error('flush failed');
      return items;
    }, 2);
    const results = await Promise.allSettled([
      batcher.run(['a']),
      batcher.run(['bad']),
      batcher.run(['c']),
    ]);
    assert.deepEqual(flushes, [['a', 'bad'], ['c']]);
    assert.equal(results[0]!.status, 'rejected');
    assert.equal(results[1]!.status, 'rejected');
    assert.deepEqual(results[2], { status: 'fulfilled', value: ['c'] });
  });
});

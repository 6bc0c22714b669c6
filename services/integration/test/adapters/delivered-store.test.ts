/** The webhook's idempotency gate on its own: first uses of an attachment that overlap share one load. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeliveredStore } from '../../src/adapters/webhook/delivered-store.js';

describe('webhook delivered store', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'delivered-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('remembers a delivery recorded while another first lookup of the attachment was still loading', async () => {
    // Several rounds: without one shared load the second lookup's set replaced the first's
    // (and its recorded delivery) in nearly every round.
    for (let round = 0; round < 5; round += 1) {
      const store = new DeliveredStore(join(dir, `round-${round}`));
      const first = store.has('a-1', 'r1');
      const second = store.has('a-1', 'r1');
      assert.equal(await first, false);
      await store.add('a-1', 'r1');
      assert.equal(await second, false);
      assert.equal(
        await store.has('a-1', 'r1'),
        true,
        `round ${round}: the delivery is remembered`,
      );
    }
  });
});

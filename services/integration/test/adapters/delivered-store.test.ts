/**
 * The webhook's durable state on its own: first uses of an attachment that overlap share
 * one load; positions (offsets in the target) survive a reopen; recordIds are pruned by
 * position, in memory and in the file, and a redelivered batch is still skipped.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TargetEvent } from '../../src/adapters/runtime/adapter-target.js';
import { alreadyApplied, positionsAfter } from '../../src/adapters/runtime/applied-position.js';
import { DeliveredStore } from '../../src/adapters/webhook/delivered-store.js';

const slot = { consumerGroup: 'adapter.webhook', topic: 'interns.created', partition: 1 };
/** Just what the position helpers read of an event. */
const eventAt = (offset: number): TargetEvent =>
  ({
    envelope: { recordId: `r${offset}` },
    position: { ...slot, offset, publishedAt: 1_000 + offset },
  }) as unknown as TargetEvent;

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

  it('keeps the position with the deliveries and prunes recordIds far below it', async () => {
    const folder = join(dir, 'pruning');
    const keep = 5;
    let store = new DeliveredStore(folder, keep);
    const batches: TargetEvent[][] = [];
    for (let start = 0; start < 200; start += 10) {
      const batch = Array.from({ length: 10 }, (_, i) => eventAt(start + i));
      batches.push(batch);
      await store.record(
        'a-1',
        batch.map((e) => ({ recordId: e.envelope.recordId, slot, offset: e.position!.offset })),
        positionsAfter(batch),
      );
    }
    assert.deepEqual(await store.position('a-1', slot), {
      nextOffset: 200,
      lastRecordId: 'r199',
      lastPublishedAt: 1_199,
    });
    assert.equal(await store.has('a-1', 'r199'), true, 'a recent delivery is kept');
    assert.equal(await store.has('a-1', 'r0'), false, 'an old one is pruned');
    // The file was rewritten: it holds far fewer than the 200 deliveries made.
    const lines = (await readFile(join(folder, 'a-1.delivered'), 'utf8')).trim().split('\n');
    const ids = lines.flatMap((line) => (JSON.parse(line) as { d: unknown[] }).d);
    assert.ok(ids.length < 100, `file holds ${ids.length} recordIds`);

    // A reopened store has the same position and still recognises every batch when it
    // comes again: the last by its kept recordIds, the first (pruned) because it sits
    // below the offset from which ids are kept, where the position vouches.
    store = new DeliveredStore(folder, keep);
    const stored = await store.position('a-1', slot);
    assert.deepEqual(stored, { nextOffset: 200, lastRecordId: 'r199', lastPublishedAt: 1_199 });
    const view = await store.view('a-1');
    const keptFrom = view.idsKeptFrom(slot);
    assert.ok(keptFrom !== undefined && keptFrom <= 200 - keep, `ids kept from ${keptFrom}`);
    for (const batch of batches)
      assert.equal(alreadyApplied(batch, view.has, keptFrom).size, 10, 'a batch delivered again');
    // Within the kept window the ids decide: a record never delivered there is new.
    const fresh = { ...eventAt(198), envelope: { recordId: 'new-at-198' } } as TargetEvent;
    assert.equal(alreadyApplied([fresh], view.has, keptFrom).size, 0);
  });
});

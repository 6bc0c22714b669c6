/**
 * Per-attachment figures of the admin status: written records and their rate over the
 * window, the last failure of the target for the attachment (kept while later writes
 * succeed, with its time), forgotten when the attachment goes. The clock is the test's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AttachmentStats,
  observeAttachments,
  RATE_WINDOW_SECONDS,
} from '../../../src/adapters/runtime/attachment-stats.js';
import type { AdapterTarget, TargetEvent } from '../../../src/adapters/runtime/adapter-target.js';

describe('attachment stats', () => {
  it('averages the written records over the window and drops what left it', () => {
    let now = 1_000_000;
    const stats = new AttachmentStats(() => now);
    stats.written('a', 30);
    now += 1000;
    stats.written('a', 20);
    const figures = stats.figures('a');
    assert.equal(figures.written, 50);
    assert.equal(figures.writtenPerSecond, 50 / RATE_WINDOW_SECONDS);
    assert.equal(figures.lastWriteAt, new Date(now).toISOString());
    now += (RATE_WINDOW_SECONDS - 1) * 1000; // the first second has left the window
    assert.equal(stats.figures('a').writtenPerSecond, 20 / RATE_WINDOW_SECONDS);
    now += 1000;
    assert.equal(stats.figures('a').writtenPerSecond, 0);
    assert.equal(stats.figures('a').written, 50);
    assert.equal(stats.figures('b').written, 0);
  });

  it('counts a target’s failures per attachment through the observed target, and forgets on removal', async () => {
    const stats = new AttachmentStats();
    let failing = true;
    const target = {
      type: 'probe',
      description: 'test target',
      configSchema: {},
      resolveMapping: async () => ({}),
      isDuplicate: async () => false,
      transform: () => ({}),
      write: async () => {
        if (failing) throw new Error('disk full', { cause: new Error('ENOSPC') });
        return 'written' as const;
      },
      writeBatch: async (_mapping: unknown, events: TargetEvent[]) =>
        events.map(() => 'written' as const),
    } satisfies AdapterTarget;
    const observed = observeAttachments(target, stats);
    const event = (attachmentId: string) =>
      ({ attachment: { attachmentId } }) as unknown as TargetEvent;
    await assert.rejects(observed.write({}, {}, event('a')), /disk full/);
    assert.equal(stats.figures('a').failures, 1);
    assert.match(stats.figures('a').lastError!.message, /disk full <- ENOSPC/);
    assert.equal(stats.figures('b').failures, 0);
    failing = false;
    assert.equal(await observed.write({}, {}, event('a')), 'written');
    assert.deepEqual(await observed.writeBatch!({}, [event('a'), event('a')]), [
      'written',
      'written',
    ]);
    const figures = stats.figures('a');
    assert.equal(figures.written, 3);
    assert.equal(figures.failures, 1, 'the last error stays, with its time, after writes succeed');
    assert.ok(Date.parse(figures.lastWriteAt!) >= Date.parse(figures.lastError!.at));
    assert.equal(observed.type, 'probe');
    stats.forget('a');
    assert.equal(stats.figures('a').written, 0);
  });
});

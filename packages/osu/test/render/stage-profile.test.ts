/** The node thread's per-stage profile: laps are summed per stage and shared out per frame. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StageProfile } from '../../src/render/stage-profile.js';

/** Busy-waits `ms` of wall time (a lap measures wall time, whatever the thread does). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('StageProfile', () => {
  it('sums each stage over its laps and divides by the frames, in the order stages first ran', () => {
    const p = new StageProfile();
    for (let i = 0; i < 3; i++) {
      spin(4);
      p.lap('draw');
      spin(1);
      p.lap('readback');
    }
    const perFrame = p.perFrame(3);
    assert.deepEqual(Object.keys(perFrame), ['draw', 'readback']);
    assert.ok(perFrame.draw! >= 4, `draw ${perFrame.draw}`);
    assert.ok(perFrame.readback! >= 1, `readback ${perFrame.readback}`);
    assert.match(
      p.summary(3),
      /^stages \(wall ms a frame, 3 frames\): draw \d+\.\d\d, readback \d+\.\d\d; loop \d/,
    );
  });
});

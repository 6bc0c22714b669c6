/** The part of the play a video covers: skip at the start, cut at the end, map time at the mods' speed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderWindow } from '../../src/render/render-window.js';

describe('renderWindow', () => {
  it('covers the whole scene by default, in whole frames', () => {
    assert.deepEqual(renderWindow({ sceneStart: -1800, sceneSeconds: 10.01, speed: 1, fps: 60 }), {
      startTime: -1800,
      durationSeconds: 10.01,
      frames: 601,
    });
  });

  it('skips seconds of video, which are speed times as many of map time, and cuts at maxSeconds', () => {
    const window = renderWindow({
      sceneStart: 1000,
      sceneSeconds: 20,
      speed: 1.5,
      fps: 30,
      skipSeconds: 4,
      maxSeconds: 6,
    });
    assert.deepEqual(window, { startTime: 1000 + 4 * 1000 * 1.5, durationSeconds: 6, frames: 180 });
  });

  it('keeps at least one frame when the skip reaches past the end', () => {
    const window = renderWindow({
      sceneStart: 0,
      sceneSeconds: 2,
      speed: 1,
      fps: 4,
      skipSeconds: 99,
    });
    assert.equal(window.frames, 1);
    assert.equal(window.startTime, 1750);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { x264ThreadsFor } from '../../src/render/frame-loop.js';

test('x264 gets every core but the frame loop’s when frames are drawn on the main thread', () => {
  assert.equal(x264ThreadsFor(0, 2), 1);
  assert.equal(x264ThreadsFor(0, 8), 7);
  assert.equal(x264ThreadsFor(0, 1), 1, 'at least one thread');
});

test('x264 keeps its own choice while worker threads draw', () => {
  assert.equal(x264ThreadsFor(4, 8), undefined);
});

/**
 * Read-back frames are freed young when the process has `gc` from its start, and no V8
 * flag is ever switched at run time (V8 does not support it: a 4k frame loop that did so
 * crashed, README). Each case runs in a child process started with the flags it names.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { skipWithoutFfmpeg } from '../helpers.js';

const child = fileURLToPath(new URL('release-frames-child.ts', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'osu-release-frames-'));
after(() => rmSync(out, { recursive: true, force: true }));

function run(nodeFlags: string[], ...args: string[]): Record<string, unknown> {
  const stdout = execFileSync(process.execPath, [...nodeFlags, '--import', 'tsx', child, ...args], {
    encoding: 'utf8',
    // a NODE_OPTIONS of the caller's (say --expose-gc) would blur the case
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

/** One 1080p readback: the loop's frame. */
const frameBytes = 1920 * 1080 * 4;
/**
 * The most frames a loop with `gc` may hold: two collection periods (three frames each)
 * and one. V8 frees a collection's dead frames on a background thread and counts them
 * down when that sweep ends, at the latest at the next collection, so on a busy machine
 * one period's frames wait for the next (seen: 4 frames quiet, 5 to 6 beside the
 * suite on Node 20 and 22). Below V8's own 64 MB external step (7.7 frames).
 */
const mostFramesHeld = 7;

describe('FrameRelease', () => {
  test('with --expose-gc at start, frames handed on are freed before the next ones pile up', () => {
    const r = run(['--expose-gc'], 'loop');
    assert.deepEqual(r.flags, []);
    assert.equal(r.collecting, true);
    assert.ok(
      (r.peak as number) < mostFramesHeld * frameBytes,
      `external memory peaked ${((r.peak as number) / 1e6).toFixed(0)} MB above the start`,
    );
  });

  test('without --expose-gc, frames are left to V8, pile past that bound, and no flag is set to get gc', () => {
    const r = run([], 'loop');
    assert.deepEqual(r.flags, []);
    assert.equal(r.collecting, false);
    // V8 collects them once external memory grew by its 64 MB step (seen: 80 to 124 MB)
    assert.ok(
      (r.peak as number) >= mostFramesHeld * frameBytes,
      `external memory peaked only ${((r.peak as number) / 1e6).toFixed(0)} MB above the start`,
    );
  });

  test(
    'a whole render switches no V8 flag, with gc or without',
    { skip: skipWithoutFfmpeg() },
    () => {
      for (const flags of [['--expose-gc'], []]) {
        const r = run(flags, 'render', mkdtempSync(join(out, 'render-')));
        assert.ok((r.frames as number) > 30);
        assert.deepEqual(r.flags, [], `node ${flags.join(' ')}`);
        const log = r.log as string[];
        assert.equal(
          log.some((l) => l.startsWith('frames left to V8')),
          flags.length === 0,
          log.join('\n'),
        );
      }
    },
  );
});

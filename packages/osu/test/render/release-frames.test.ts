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
 * The most frames a loop with `gc` may hold. A collection comes every 4 frames (the first
 * count of 8.3 MB frames past 24 MiB). V8 frees a collection's dead frames on a background
 * thread and counts them down when that sweep ends, at the latest at the next collection,
 * so a busy machine may still count one period's 4 frames while the next 3 arrive: 7.
 * Seen: 4 quiet (the frames of the collection just made, counted down a moment later), 5
 * to 6 beside the suite on Node 20 and 22. Left to V8, frames pile past its own 64 MB
 * external step (7.7 frames) before it starts to collect them: 8 or more.
 */
const mostFramesHeld = 7;
/** External memory above the start that `mostFramesHeld` frames and a few bytes stay under. */
const heldBound = (mostFramesHeld + 1) * frameBytes;

describe('FrameRelease', () => {
  test('with --expose-gc at start, frames handed on are freed before the next ones pile up', () => {
    const r = run(['--expose-gc'], 'loop');
    assert.deepEqual(r.flags, []);
    assert.equal(r.collecting, true);
    assert.ok(
      (r.peak as number) < heldBound,
      `external memory peaked ${((r.peak as number) / 1e6).toFixed(0)} MB above the start`,
    );
  });

  test('without --expose-gc, frames are left to V8, pile past that bound, and no flag is set to get gc', () => {
    const r = run([], 'loop');
    assert.deepEqual(r.flags, []);
    assert.equal(r.collecting, false);
    // seen: 9 to 30 frames (75 to 249 MB)
    assert.ok(
      (r.peak as number) >= heldBound,
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

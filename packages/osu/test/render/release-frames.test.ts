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

describe('FrameRelease', () => {
  test('with --expose-gc at start, frames handed on are freed before the next ones pile up', () => {
    const r = run(['--expose-gc'], 'loop');
    assert.deepEqual(r.flags, []);
    assert.equal(r.collecting, true);
    // left to V8, 40 frames (330 MB) pile up to its 64 MB external step (8 frames) and more
    const frameBytes = 1920 * 1080 * 4;
    assert.ok(
      (r.peak as number) < 5 * frameBytes,
      `external memory peaked ${((r.peak as number) / 1e6).toFixed(0)} MB above the start`,
    );
  });

  test('without --expose-gc, frames are left to V8 and no flag is set to get gc', () => {
    const r = run([], 'loop');
    assert.deepEqual(r.flags, []);
    assert.equal(r.collecting, false);
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

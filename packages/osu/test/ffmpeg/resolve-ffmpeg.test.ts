/** ffmpeg is found from what the caller passes, never from the environment. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resolveFfmpeg } from '../../src/ffmpeg/resolve-ffmpeg.js';

describe('resolveFfmpeg', () => {
  it('takes the given paths, and ffprobe beside the given ffmpeg when it is there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffmpeg-'));
    const ffmpeg = join(dir, 'ffmpeg');
    assert.deepEqual(resolveFfmpeg({ ffmpegPath: ffmpeg, ffprobePath: '/opt/probe' }), {
      ffmpeg,
      ffprobe: '/opt/probe',
    });
    assert.notEqual(resolveFfmpeg({ ffmpegPath: ffmpeg }).ffprobe, join(dir, 'ffprobe'));
    writeFileSync(join(dir, 'ffprobe'), '');
    assert.equal(resolveFfmpeg({ ffmpegPath: ffmpeg }).ffprobe, join(dir, 'ffprobe'));
  });

  it('ignores FFMPEG_PATH in the environment (the service passes its setting)', () => {
    const before = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = '/nowhere/ffmpeg';
    try {
      assert.notEqual(resolveFfmpeg().ffmpeg, '/nowhere/ffmpeg');
    } finally {
      if (before === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = before;
    }
  });
});

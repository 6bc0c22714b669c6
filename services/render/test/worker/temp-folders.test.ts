/** Stale job temp folders left by killed workers are swept; fresh ones and others are kept. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sweepStaleJobFolders } from '../../src/worker/temp-folders.js';

test('sweeps render-job-* folders older than the limit only', async () => {
  const root = await mkdtemp(join(tmpdir(), 'render-sweep-'));
  try {
    for (const name of ['render-job-old', 'render-job-new', 'other-old'])
      await mkdir(join(root, name));
    await mkdir(join(root, 'render-job-old', 'inside'));
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(join(root, 'render-job-old'), hourAgo, hourAgo);
    await utimes(join(root, 'other-old'), hourAgo, hourAgo);
    const removed = await sweepStaleJobFolders(root, 60_000);
    assert.deepEqual(removed, ['render-job-old']);
    assert.equal(existsSync(join(root, 'render-job-old')), false);
    assert.ok(existsSync(join(root, 'render-job-new')));
    assert.ok(existsSync(join(root, 'other-old')));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
